package dev.cairn.broker.api;

import dev.cairn.broker.cluster.TopicPartition;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Parks fetches that have less than {@code min.bytes} to return (Kafka's long poll): a parked fetch wakes when
 * any of its partitions is appended to, or when its wait ends. At most {@link #PARKED_FETCHES_MAX} fetches are
 * parked; past that a fetch is answered at once with what it has, which is legal (the wait is an upper bound).
 */
public final class FetchWaiter {
    public static final int PARKED_FETCHES_MAX = 10_000;

    private final ScheduledExecutorService timer;
    private final Map<TopicPartition, Set<CompletableFuture<Void>>> parked = new ConcurrentHashMap<>();
    private final AtomicInteger parkedCount = new AtomicInteger();

    public FetchWaiter(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Completes when one of {@code partitions} is appended to, or after {@code waitMs}. */
    public CompletableFuture<Void> await(Collection<TopicPartition> partitions, long waitMs) {
        CompletableFuture<Void> wake = new CompletableFuture<>();
        if (waitMs <= 0 || parkedCount.incrementAndGet() > PARKED_FETCHES_MAX) {
            if (waitMs > 0) {
                parkedCount.decrementAndGet();
            }
            wake.complete(null);
            return wake;
        }
        for (TopicPartition tp : partitions) {
            parked.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(wake);
        }
        var timeout = timer.schedule(() -> wake.complete(null), waitMs, TimeUnit.MILLISECONDS);
        wake.whenComplete((ignored, error) -> {
            timeout.cancel(false);
            parkedCount.decrementAndGet();
            for (TopicPartition tp : partitions) {
                Set<CompletableFuture<Void>> set = parked.get(tp);
                if (set != null) {
                    set.remove(wake);
                }
            }
        });
        return wake;
    }

    /** Wakes every fetch parked on {@code tp}. Called on an apply thread: only completes futures. */
    public void onAppend(TopicPartition tp) {
        Set<CompletableFuture<Void>> set = parked.get(tp);
        if (set == null || set.isEmpty()) {
            return;
        }
        // Completing runs the fetch's continuation, so it happens on the timer thread, not the apply thread.
        for (CompletableFuture<Void> wake : Set.copyOf(set)) {
            try {
                timer.execute(() -> wake.complete(null));
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                return;   // the broker is closing (its timers first): the parked fetches' connections go with it
            }
        }
    }

    int parkedCount() {
        return parkedCount.get();
    }
}
