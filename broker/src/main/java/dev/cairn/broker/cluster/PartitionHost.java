package dev.cairn.broker.cluster;

import dev.cairn.broker.partition.Partition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The partition groups of one broker, on one Raft engine ({@code raft.engine}): what the API handlers see
 * ({@link ReplicatedPartitions}), plus what the broker itself runs on them: its maintenance timers, metrics and
 * shutdown. Implemented over Ratis ({@code broker.raft.RatisCluster}) and over Cairn's own engine
 * ({@code broker.engine.EnginePartitions}).
 */
public interface PartitionHost extends ReplicatedPartitions {

    /**
     * Hands the partition's leadership to {@code toNode} (ElectLeaders). Completes with whether {@code toNode} leads
     * within {@code timeoutMs}; never exceptionally.
     */
    CompletableFuture<Boolean> transferLeadership(TopicPartition tp, int toNode, long timeoutMs);

    /** Every partition replica this broker holds and has opened, leader or follower, by partition. */
    Map<TopicPartition, Partition> localReplicasByPartition();

    /** The partition replicas this broker hosts and has opened, led or not (a read-only view, for metrics). */
    default List<Partition> localReplicas() {
        return new ArrayList<>(localReplicasByPartition().values());
    }

    /** This broker's replica of {@code tp}, leader or follower; empty when it hosts none or it is starting. */
    Optional<Partition> localReplica(TopicPartition tp);

    /** This broker's replica of {@code tp} as Raft sees it; empty when it hosts none or it is still starting. */
    Optional<ReplicaRaftState> replicaRaftState(TopicPartition tp);

    /** Publishes leader, epoch and in-sync replicas of the partitions this broker leads, where they changed. */
    void publishPartitionStates(long nowMs, long replicaLagTimeMaxMs);

    /** Steps reassignments this broker leads and removes replicas no longer placed here. */
    void driveReassignments(long transferTimeoutMs, long nowMs);

    /** Moves leaderships away from replicas that went offline here. */
    void handOverOfflineLeaderships(long nowMs, long transferTimeoutMs);

    /** Hands leaderships back to preferred replicas that are in sync (auto.leader.rebalance.enable). */
    void balanceLeadership(long nowMs, long transferTimeoutMs);

    /** Retention, topic configs and compaction passes, submitted by leaders on the maintenance timer. */
    PartitionLeaderJobs leaderJobs();

    /**
     * Where other brokers reach this host's partition traffic, registered in metadata; null when they use the
     * broker's raft.listener (Ratis).
     */
    default String engineAddress() {
        return null;
    }

    /** The partition replicas one broker may host (POLICY_VIOLATION past it). */
    default int replicasPerBrokerMax() {
        return dev.cairn.broker.config.Limits.PARTITIONS_PER_BROKER_MAX;
    }

    /**
     * The largest record batch these groups carry, which a topic's {@code max.message.bytes} may allow above the
     * broker's {@code message.max.bytes}; by default that broker limit, as Ratis's log buffers are sized from it.
     */
    default int batchBytesMax(int brokerMessageMaxBytes) {
        return brokerMessageMaxBytes;
    }

    /** Whether replicas can move between brokers (AlterPartitionReassignments). */
    default boolean supportsReassignment() {
        return true;
    }

    /** Stops the groups and releases their files, within the engine's own bound. */
    void close();
}
