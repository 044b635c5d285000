package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Reads of a partition's committed-offset state from its leader's applied state, from any broker: from this broker's
 * replica when it leads, otherwise as a read-only Raft query through the leader ({@link LeaderClients}). A follower's
 * replica is never read: it may lag the leader by a heartbeat.
 */
final class LeaderReads {
    private final Function<TopicPartition, Optional<Partition>> ledReplica;
    private final LeaderClients leaderClients;

    LeaderReads(Function<TopicPartition, Optional<Partition>> ledReplica, LeaderClients leaderClients) {
        this.ledReplica = ledReplica;
        this.leaderClients = leaderClients;
    }

    /**
     * A group's committed offset: {@link Result.OffsetFetched} (offset -1 when none) or {@link Result.Rejected};
     * see {@link OffsetQueries#committedOffset} for {@code requireStable}.
     */
    CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId, boolean requireStable,
            long timeoutMs) {
        return read(tp, partition -> OffsetQueries.committedOffset(partition, groupId, requireStable),
                OffsetQueries.encodeCommittedOffsetQuery(groupId, requireStable), timeoutMs);
    }

    /** The groups with a committed offset: {@link Result.GroupsListed} or {@link Result.Rejected}. */
    CompletableFuture<Result> committedGroups(TopicPartition tp, long timeoutMs) {
        return read(tp, partition -> new Result.GroupsListed(List.copyOf(partition.committedOffsets().keySet())),
                OffsetQueries.encodeCommittedGroupsQuery(), timeoutMs);
    }

    private CompletableFuture<Result> read(TopicPartition tp, Function<Partition, Result> local, ByteBuffer query,
            long timeoutMs) {
        Optional<Partition> led = ledReplica.apply(tp);
        if (led.isPresent()) {
            try {
                return CompletableFuture.completedFuture(local.apply(led.get()));
            } catch (StorageException e) {
                return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR,
                        e.getMessage()));
            }
        }
        return leaderClients.query(tp, query, timeoutMs);
    }
}
