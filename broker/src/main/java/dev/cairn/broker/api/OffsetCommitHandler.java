package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.OffsetCommitRequest;
import dev.cairn.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import dev.cairn.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import dev.cairn.protocol.message.OffsetCommitResponse;
import dev.cairn.protocol.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import dev.cairn.protocol.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * OffsetCommit (key 8), versions 2-7: each partition's offset is replicated through that partition's Raft group
 * as a {@link Command.CommitOffset}, on this broker, which must lead the group. The {@link GroupCoordinator}
 * checks generation and member as Kafka's ClassicGroup.validateOffsetCommit does: generation -1 with no member
 * (standalone consumers, Admin) only while the group has no members (else UNKNOWN_MEMBER_ID); otherwise the
 * member must be known (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) and in the current generation
 * (ILLEGAL_GENERATION, also for a group the coordinator does not know), and not between JoinGroup and its
 * assignment (REBALANCE_IN_PROGRESS). Replication failures are reported as Kafka's group coordinator
 * reports log write failures (GroupCoordinatorService's exception mapping), because consumers retry only the
 * coordinator errors: NOT_LEADER_OR_FOLLOWER in a commit response would fail commitSync for good.
 */
public final class OffsetCommitHandler implements RequestHandler {
    /**
     * Longest metadata string accepted, in chars as Kafka counts it ({@code String.length()} against
     * {@code offset.metadata.max.bytes}, default 4096); longer ones get OFFSET_METADATA_TOO_LARGE.
     */
    public static final int OFFSET_METADATA_CHARS_MAX = 4096;
    /** How long a commit may wait for its Raft group (Kafka's {@code offsets.commit.timeout.ms} default). */
    public static final long OFFSET_COMMIT_TIMEOUT_MS = 5_000;
    /** The committed leader epoch of requests below v6, which carry none. */
    static final int NO_LEADER_EPOCH = -1;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final GroupCoordinator groups;
    private final LongSupplier clockMs;

    public OffsetCommitHandler(MetadataService metadata, ReplicatedPartitions partitions, GroupCoordinator groups,
            LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.groups = groups;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String groupId = body.get(OffsetCommitRequest.GROUP_ID);
        MetadataImage image = metadata.image();
        ConnectionSession session = context.session();
        ErrorCode groupError = !session.allowedOnGroup(AclOperation.READ, groupId == null ? "" : groupId)
                ? ErrorCode.GROUP_AUTHORIZATION_FAILED
                : groupError(groupId, body.get(OffsetCommitRequest.GENERATION_ID_OR_MEMBER_EPOCH),
                        body.get(OffsetCommitRequest.MEMBER_ID), body.get(OffsetCommitRequest.GROUP_INSTANCE_ID),
                        image);
        long nowMs = clockMs.getAsLong();
        List<CompletableFuture<Struct>> topicResponses = new ArrayList<>();
        for (Struct topic : body.get(OffsetCommitRequest.TOPICS)) {
            String name = topic.get(OffsetCommitRequestTopic.NAME);
            TopicInfo info = image.topics().get(name);
            boolean readable = session.allowedOnTopic(AclOperation.READ, name);
            List<CompletableFuture<Struct>> partitionResponses = new ArrayList<>();
            for (Struct partition : topic.get(OffsetCommitRequestTopic.PARTITIONS)) {
                int index = partition.get(OffsetCommitRequestPartition.PARTITION_INDEX);
                ErrorCode precheck = null;
                if (groupError == ErrorCode.GROUP_AUTHORIZATION_FAILED) {
                    precheck = groupError;
                } else if (!readable) {
                    precheck = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
                } else if (info == null || index < 0 || index >= info.partitionCount()) {
                    // Kafka answers unknown topics before it asks the coordinator anything.
                    precheck = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
                } else if (groupError != null) {
                    precheck = groupError;
                } else {
                    precheck = partitionError(partition);
                }
                if (precheck != null) {
                    partitionResponses.add(CompletableFuture.completedFuture(answer(index, precheck)));
                    continue;
                }
                Command.CommitOffset commit = new Command.CommitOffset(groupId,
                        partition.get(OffsetCommitRequestPartition.COMMITTED_OFFSET),
                        partition.get(OffsetCommitRequestPartition.COMMITTED_LEADER_EPOCH),
                        partition.get(OffsetCommitRequestPartition.COMMITTED_METADATA), nowMs);
                // The coordinator need not lead the partition: the commit goes through the partition's leader.
                partitionResponses.add(partitions.submitViaLeader(new TopicPartition(name, index), commit,
                        OFFSET_COMMIT_TIMEOUT_MS).thenApply(result -> answer(index, errorOf(result))));
            }
            topicResponses.add(ProduceHandler.allOf(partitionResponses).thenApply(list ->
                    new Struct(OffsetCommitResponseTopic.SCHEMA)
                            .set(OffsetCommitResponseTopic.NAME, name)
                            .set(OffsetCommitResponseTopic.PARTITIONS, list)));
        }
        return ProduceHandler.allOf(topicResponses).thenApply(list -> new Struct(OffsetCommitResponse.SCHEMA)
                .set(OffsetCommitResponse.THROTTLE_TIME_MS, 0)
                .set(OffsetCommitResponse.TOPICS, list));
    }

    /** The error every partition of the request gets, or null when the group may commit here. */
    private ErrorCode groupError(String groupId, int generationId, String memberId, String groupInstanceId,
            MetadataImage image) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, image.liveBrokers());
        if (coordinator == null || coordinator.nodeId() != metadata.localNodeId()) {
            return ErrorCode.NOT_COORDINATOR;
        }
        ErrorCode membership = groups.validateOffsetCommit(groupId, memberId == null ? "" : memberId,
                groupInstanceId, generationId);
        return membership == ErrorCode.NONE ? null : membership;
    }

    private static ErrorCode partitionError(Struct partition) {
        String committedMetadata = partition.get(OffsetCommitRequestPartition.COMMITTED_METADATA);
        if (committedMetadata != null && committedMetadata.length() > OFFSET_METADATA_CHARS_MAX) {
            return ErrorCode.OFFSET_METADATA_TOO_LARGE;
        }
        return null;
    }

    /** Kafka's group coordinator mapping of log write failures to the errors consumers retry. */
    static ErrorCode errorOf(Result result) {
        if (result instanceof Result.OffsetCommitted) {
            return ErrorCode.NONE;
        }
        if (!(result instanceof Result.Rejected rejected)) {
            return ErrorCode.UNKNOWN_SERVER_ERROR;
        }
        switch (rejected.error()) {
            case UNKNOWN_TOPIC_OR_PARTITION:
            case NOT_ENOUGH_REPLICAS:
            case REQUEST_TIMED_OUT:
                return ErrorCode.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER:
            case KAFKA_STORAGE_ERROR:
                return ErrorCode.NOT_COORDINATOR;
            case MESSAGE_TOO_LARGE:
            case RECORD_LIST_TOO_LARGE:
            case INVALID_FETCH_SIZE:
                return ErrorCode.UNKNOWN_SERVER_ERROR;
            default:
                return rejected.error();
        }
    }

    private static Struct answer(int index, ErrorCode error) {
        return new Struct(OffsetCommitResponsePartition.SCHEMA)
                .set(OffsetCommitResponsePartition.PARTITION_INDEX, index)
                .set(OffsetCommitResponsePartition.ERROR_CODE, error.code());
    }
}
