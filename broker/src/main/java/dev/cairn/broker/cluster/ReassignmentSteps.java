package dev.cairn.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bookkeeping of a broker's reassignment driver (one per Raft engine): at most one step in flight per partition
 * and {@code stepsMax} in all, each bounded by {@code stepTimeoutMs}, and why a move waits logged once per reason
 * rather than at every run that retries it.
 */
public final class ReassignmentSteps {
    private static final Logger LOG = LoggerFactory.getLogger(ReassignmentSteps.class);
    private final int stepsMax;
    private final long stepTimeoutMs;
    private final Set<TopicPartition> inFlight = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, String> lastWait = new ConcurrentHashMap<>();

    public ReassignmentSteps(int stepsMax, long stepTimeoutMs) {
        this.stepsMax = stepsMax;
        this.stepTimeoutMs = stepTimeoutMs;
    }

    /** Forgets the partitions no longer moving; call at the start of each run. */
    public void retain(Set<TopicPartition> moving) {
        lastWait.keySet().retainAll(moving);
    }

    /** Whether {@code stepsMax} steps are in flight: the other partitions wait for a later run. */
    public boolean full() {
        return inFlight.size() >= stepsMax;
    }

    /** Claims {@code tp} for a step; false when one is in flight for it already. */
    public boolean claim(TopicPartition tp) {
        return inFlight.add(tp);
    }

    /** Releases {@code tp} once {@code step} (claimed) completes or times out, logging a new reason to wait. */
    public void track(TopicPartition tp, List<Integer> target, CompletableFuture<?> step) {
        step.orTimeout(stepTimeoutMs, TimeUnit.MILLISECONDS).whenComplete((done, error) -> {
            inFlight.remove(tp);
            String why = error == null ? null : error.toString();
            if (why != null && !why.equals(lastWait.put(tp, why))) {
                LOG.info("{}: reassignment to {} waits: {}", tp, target, why);
            } else if (why == null) {
                lastWait.remove(tp);
            }
        });
    }
}
