package dev.cairn.broker.cluster;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The partitions this broker hosts, as the API handlers see them: submit a command through a partition's Raft
 * group, read a local replica, ask who leads. Implemented over Ratis in {@code broker.raft}.
 */
public interface ReplicatedPartitions {

    /**
     * Replicates {@code command} through the partition's group, this broker being its leader. Never completes
     * exceptionally: not leading gives NOT_LEADER_OR_FOLLOWER, an unknown outcome REQUEST_TIMED_OUT, a storage
     * failure KAFKA_STORAGE_ERROR, all as {@link Result.Rejected}. After {@code timeoutMs} the answer is
     * REQUEST_TIMED_OUT (the command may still commit; idempotent producers retry safely).
     */
    CompletableFuture<Result> submit(TopicPartition partition, Command command, long timeoutMs);

    /**
     * Replicates {@code command} through the partition's group from any broker: directly when this broker leads
     * it, otherwise through a Raft client that finds the leader (offset commits reach the group coordinator,
     * which need not lead every partition). Never completes exceptionally; failures are as for {@link #submit}.
     */
    CompletableFuture<Result> submitViaLeader(TopicPartition partition, Command command, long timeoutMs);

    /**
     * A group's committed offset for the partition, read from the partition leader's applied state, from any
     * broker: {@link Result.OffsetFetched} (offset -1 when none) or {@link Result.Rejected}. With
     * {@code requireStable} (OffsetFetch's {@code require_stable}), UNSTABLE_OFFSET_COMMIT while a transaction holds
     * an offset of the group for the partition; without it, the last committed offset, the pending one ignored.
     */
    CompletableFuture<Result> committedOffset(TopicPartition partition, String groupId, boolean requireStable,
            long timeoutMs);

    /**
     * The groups with a committed offset for the partition, read from the partition leader's applied state, from any
     * broker: {@link Result.GroupsListed} or {@link Result.Rejected}.
     */
    CompletableFuture<Result> committedGroups(TopicPartition partition, long timeoutMs);

    /** This broker's replica when it is the partition's ready leader and the replica is healthy. */
    Optional<Partition> leaderReplica(TopicPartition partition);

    Leadership leadership(TopicPartition partition);

    /** Registers a callback run (on an apply thread; it must be quick) after every append to any partition. */
    void onAppend(Consumer<TopicPartition> listener);
}
