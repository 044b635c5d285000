package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Reaches a partition's leader on another broker through the leader RPC, as Ratis's clients did: the leader is the
 * one this broker's engine follows (or metadata names, for a partition with no replica here), and a call answered
 * NOT_LEADER_OR_FOLLOWER (no leader known yet, an election under way, a call the leader never received) is tried
 * again after {@link #RETRY_BACKOFF_MS} until its timeout. Only a call that was never applied comes back
 * NOT_LEADER_OR_FOLLOWER, so trying it again is safe.
 */
final class EngineForwarding implements AutoCloseable {
    /** Pause before trying a leader again. */
    static final long RETRY_BACKOFF_MS = 100;

    private final int nodeId;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "cairn-engine-forwarding");
        thread.setDaemon(true);
        return thread;
    });

    EngineForwarding(int nodeId) {
        this.nodeId = nodeId;
    }

    /**
     * Calls the group's leader with the time left, until it answers something other than NOT_LEADER_OR_FOLLOWER or
     * {@code timeoutMs} passes: {@code local} when this broker leads and serves, {@code remote} with the leader's
     * node id otherwise.
     */
    CompletableFuture<Result> call(TopicPartition tp, long timeoutMs, Supplier<Leadership> leadership,
            LongFunction<CompletableFuture<Result>> local,
            BiFunction<Integer, Long, CompletableFuture<Result>> remote) {
        CompletableFuture<Result> answer = new CompletableFuture<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        BiFunction<Integer, Long, CompletableFuture<Result>> attempt = (leader, leftMs) -> leader == nodeId
                ? local.apply(leftMs) : remote.apply(leader, leftMs);
        tryOnce(tp, leadership, deadline, attempt, answer, null);
        return answer;
    }

    private void tryOnce(TopicPartition tp, Supplier<Leadership> leaderships, long deadline,
            BiFunction<Integer, Long, CompletableFuture<Result>> attempt, CompletableFuture<Result> answer,
            Result last) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
            answer.complete(last != null ? last : new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + ": no leader reachable from broker " + nodeId + " in time"));
            return;
        }
        Leadership leadership = leaderships.get();
        if (leadership.leaderId() < 0 || (leadership.leaderId() == nodeId && !leadership.local())) {
            // No leader known, or this broker was elected and does not serve yet.
            retryLater(tp, leaderships, deadline, attempt, answer, new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + ": no leader known to broker " + nodeId));
            return;
        }
        attempt.apply(leadership.leaderId(), leftMs).whenComplete((result, error) -> {
            if (error == null && !(result instanceof Result.Rejected rejected
                    && rejected.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER)) {
                answer.complete(result);
            } else {
                retryLater(tp, leaderships, deadline, attempt, answer, error == null ? result : new Result.Rejected(
                        ErrorCode.REQUEST_TIMED_OUT, tp + ": " + error));
            }
        });
    }

    private void retryLater(TopicPartition tp, Supplier<Leadership> leaderships, long deadline,
            BiFunction<Integer, Long, CompletableFuture<Result>> attempt, CompletableFuture<Result> answer,
            Result last) {
        try {
            retries.schedule(() -> tryOnce(tp, leaderships, deadline, attempt, answer, last), RETRY_BACKOFF_MS,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            answer.complete(last);
        }
    }

    @Override
    public void close() {
        retries.shutdownNow();
    }
}
