package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A group's committed offsets across partitions, for DeleteGroups and OffsetDelete. Committed offsets live in each
 * partition's Raft group (not in an offsets topic), so finding every partition a group committed to reads each
 * partition's leader, and deleting one is a replicated command through that partition's group.
 *
 * <p>Failures come back as the group-level error clients retry against the same coordinator,
 * COORDINATOR_LOAD_IN_PROGRESS (as OffsetFetch answers), never as a partial answer: a deletion is idempotent, so
 * the retry finishes what the first attempt began.
 */
final class GroupOffsets {
    /** How long one partition's read or deletion may take (Kafka's offsets.commit.timeout.ms). */
    static final long TIMEOUT_MS = 5_000;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    GroupOffsets(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    /** The group-level error when this broker cannot act for the group, else null. */
    ErrorCode coordinatorError(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, metadata.image().liveBrokers());
        if (coordinator == null || coordinator.nodeId() != metadata.localNodeId()) {
            return ErrorCode.NOT_COORDINATOR;
        }
        return null;
    }

    /** Every partition, of every topic, where the group has a committed offset; or the error a read ran into. */
    CompletableFuture<Found> committedPartitions(String groupId) {
        MetadataImage image = metadata.image();
        List<TopicPartition> all = new ArrayList<>();
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                all.add(new TopicPartition(topic.name(), p));
            }
        }
        List<CompletableFuture<Result>> reads = new ArrayList<>();
        for (TopicPartition tp : all) {
            // Stable reads, as before: a partition whose offset a transaction holds fails the listing (retried) rather
            // than be left out of a deletion its commit would undo.
            reads.add(partitions.committedOffset(tp, groupId, true, TIMEOUT_MS));
        }
        return ProduceHandler.allOf(reads).thenApply(ignored -> {
            List<TopicPartition> found = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                Result result = reads.get(i).join();
                if (!(result instanceof Result.OffsetFetched fetched)) {
                    return new Found(List.of(), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
                }
                if (fetched.offset() != Result.OffsetFetched.NONE.offset()) {
                    found.add(all.get(i));
                }
            }
            return new Found(found, ErrorCode.NONE);
        });
    }

    /** Deletes the group's committed offset of each partition; the error a deletion ran into, if any. */
    CompletableFuture<Deleted> delete(String groupId, List<TopicPartition> targets) {
        List<CompletableFuture<Result>> deletions = new ArrayList<>();
        for (TopicPartition tp : targets) {
            deletions.add(partitions.submitViaLeader(tp, new Command.DeleteOffset(groupId), TIMEOUT_MS));
        }
        return ProduceHandler.allOf(deletions).thenApply(ignored -> {
            boolean anyExisted = false;
            for (CompletableFuture<Result> deletion : deletions) {
                if (!(deletion.join() instanceof Result.OffsetDeleted deleted)) {
                    return new Deleted(false, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
                }
                anyExisted |= deleted.existed();
            }
            return new Deleted(anyExisted, ErrorCode.NONE);
        });
    }

    /** Partitions with a committed offset of the group, or (error not NONE) a read failed. */
    record Found(List<TopicPartition> partitions, ErrorCode error) {
    }

    /** Whether any of the deleted offsets existed, or (error not NONE) a deletion failed. */
    record Deleted(boolean anyExisted, ErrorCode error) {
    }
}
