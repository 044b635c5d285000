package dev.cairn.broker.metrics;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import io.micrometer.core.instrument.Timer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Times each command submitted to a partition's Raft group until it is committed and applied
 * ({@code cairn_raft_commit_latency_seconds}); everything else passes straight through.
 */
public final class TimedReplicatedPartitions implements ReplicatedPartitions {
    private final ReplicatedPartitions delegate;
    private final Timer commitLatency;

    public TimedReplicatedPartitions(ReplicatedPartitions delegate, BrokerMetrics metrics) {
        this.delegate = delegate;
        this.commitLatency = metrics.raftCommitLatency();
    }

    @Override
    public CompletableFuture<Result> submit(TopicPartition partition, Command command, long timeoutMs) {
        long startNs = System.nanoTime();
        return timed(startNs, delegate.submit(partition, command, timeoutMs));
    }

    @Override
    public CompletableFuture<Result> submitViaLeader(TopicPartition partition, Command command, long timeoutMs) {
        long startNs = System.nanoTime();
        return timed(startNs, delegate.submitViaLeader(partition, command, timeoutMs));
    }

    private CompletableFuture<Result> timed(long startNs, CompletableFuture<Result> submitted) {
        submitted.whenComplete((result, error) -> commitLatency.record(System.nanoTime() - startNs,
                TimeUnit.NANOSECONDS));
        return submitted;
    }

    @Override
    public CompletableFuture<Result> committedOffset(TopicPartition partition, String groupId, boolean requireStable,
            long timeoutMs) {
        return delegate.committedOffset(partition, groupId, requireStable, timeoutMs);
    }

    @Override
    public CompletableFuture<Result> committedGroups(TopicPartition partition, long timeoutMs) {
        return delegate.committedGroups(partition, timeoutMs);
    }

    @Override
    public Optional<Partition> leaderReplica(TopicPartition partition) {
        return delegate.leaderReplica(partition);
    }

    @Override
    public Leadership leadership(TopicPartition partition) {
        return delegate.leadership(partition);
    }

    @Override
    public void onAppend(Consumer<TopicPartition> listener) {
        delegate.onAppend(listener);
    }
}
