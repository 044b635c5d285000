package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.TxnOffsetCommitRequest;
import dev.cairn.protocol.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition;
import dev.cairn.protocol.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic;
import dev.cairn.protocol.message.TxnOffsetCommitResponse;
import dev.cairn.protocol.message.TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition;
import dev.cairn.protocol.message.TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * TxnOffsetCommit (key 28), versions 0-4, at the group's coordinator: a producer's transaction commits the group's
 * offsets (consume-transform-produce, Kafka Streams' exactly-once). Cairn keeps committed offsets in each partition's
 * own Raft group, so the partitions are first added to the transaction at its coordinator (their markers will end
 * it there too), then each offset is held pending in its partition ({@link Command.TxnCommitOffset}) until the
 * transaction's marker commits it or aborts it; OffsetFetch answers UNSTABLE_OFFSET_COMMIT meanwhile. From v3 the
 * member and generation are checked as OffsetCommit checks them; earlier versions carry none.
 */
public final class TxnOffsetCommitHandler implements RequestHandler {
    /**
     * The whole request's bound. TxnOffsetCommit has no timeout field: franz-go waits 10 s for the answer and fails
     * the transaction for good when it does not come, so the answer comes within this, with a retriable error when a
     * step ran out of time (the coordinator step takes at most
     * {@link TransactionCoordinator#REQUEST_SUBMIT_TIMEOUT_MS}, the offsets get what is left, at most
     * {@link OffsetCommitHandler#OFFSET_COMMIT_TIMEOUT_MS}).
     */
    static final long REQUEST_TIMEOUT_MS = 8_000;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final LongSupplier clockMs;

    public TxnOffsetCommitHandler(MetadataService metadata, ReplicatedPartitions partitions, GroupCoordinator groups,
            TransactionCoordinator transactions, LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.groups = groups;
        this.transactions = transactions;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String transactionalId = body.get(TxnOffsetCommitRequest.TRANSACTIONAL_ID);
        String groupId = body.get(TxnOffsetCommitRequest.GROUP_ID);
        ConnectionSession session = context.session();
        ErrorCode requestError = !session.allowed(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)
                ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                : !session.allowedOnGroup(AclOperation.READ, groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED
                : groupError(groupId, body);
        MetadataImage image = metadata.image();
        Map<TxnPartition, ErrorCode> checked = new LinkedHashMap<>();
        Map<TxnPartition, Struct> offsets = new LinkedHashMap<>();
        for (Struct topic : body.get(TxnOffsetCommitRequest.TOPICS)) {
            String name = topic.get(TxnOffsetCommitRequestTopic.NAME);
            TopicInfo info = image.topics().get(name);
            boolean readable = session.allowedOnTopic(AclOperation.READ, name);
            for (Struct partition : topic.get(TxnOffsetCommitRequestTopic.PARTITIONS)) {
                int index = partition.get(TxnOffsetCommitRequestPartition.PARTITION_INDEX);
                TxnPartition tp = new TxnPartition(name, index);
                String metadataText = partition.get(TxnOffsetCommitRequestPartition.COMMITTED_METADATA);
                checked.put(tp, requestError != null ? requestError
                        : !readable ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
                        : info == null || index < 0 || index >= info.partitionCount()
                        ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                        : metadataText != null && metadataText.length() > OffsetCommitHandler.OFFSET_METADATA_CHARS_MAX
                        ? ErrorCode.OFFSET_METADATA_TOO_LARGE : ErrorCode.NONE);
                offsets.put(tp, partition);
            }
        }
        List<TxnPartition> committable = checked.entrySet().stream().filter(e -> e.getValue() == ErrorCode.NONE)
                .map(Map.Entry::getKey).toList();
        if (committable.isEmpty()) {
            return CompletableFuture.completedFuture(response(checked));
        }
        long producerId = body.get(TxnOffsetCommitRequest.PRODUCER_ID);
        short epoch = body.get(TxnOffsetCommitRequest.PRODUCER_EPOCH);
        long nowMs = clockMs.getAsLong();
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REQUEST_TIMEOUT_MS);
        return transactions.submitViaCoordinator(transactionalId, new Command.TxnAddPartitions(transactionalId,
                producerId, epoch, committable, true, nowMs)).thenCompose(added -> {
                    if (added.error() != ErrorCode.NONE) {
                        committable.forEach(tp -> checked.put(tp, added.error()));
                        return CompletableFuture.completedFuture(response(checked));
                    }
                    List<CompletableFuture<Void>> commits = new ArrayList<>();
                    long commitTimeoutMs = commitTimeoutMs(deadlineNanos, System.nanoTime());
                    for (TxnPartition tp : committable) {
                        Struct partition = offsets.get(tp);
                        Command commit = new Command.TxnCommitOffset(producerId, epoch, groupId,
                                partition.get(TxnOffsetCommitRequestPartition.COMMITTED_OFFSET),
                                partition.get(TxnOffsetCommitRequestPartition.COMMITTED_LEADER_EPOCH),
                                partition.get(TxnOffsetCommitRequestPartition.COMMITTED_METADATA), nowMs);
                        commits.add(partitions.submitViaLeader(new TopicPartition(tp.topic(), tp.partition()),
                                commit, commitTimeoutMs)
                                .thenAccept(result -> {
                                    synchronized (checked) {
                                        checked.put(tp, OffsetCommitHandler.errorOf(result));
                                    }
                                }));
                    }
                    return CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)).thenApply(done -> {
                        synchronized (checked) {
                            return response(checked);
                        }
                    });
                });
    }

    /** How long the offset commits may take once the coordinator step ended at {@code nowNanos}: at least 1 ms. */
    static long commitTimeoutMs(long deadlineNanos, long nowNanos) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - nowNanos);
        return Math.max(1, Math.min(OffsetCommitHandler.OFFSET_COMMIT_TIMEOUT_MS, leftMs));
    }

    /** The error of the whole request from the group's side, or null: coordinator, then member (v3+). */
    private ErrorCode groupError(String groupId, Struct body) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, metadata.image().liveBrokers());
        if (coordinator == null || coordinator.nodeId() != metadata.localNodeId()) {
            return ErrorCode.NOT_COORDINATOR;
        }
        int generation = body.get(TxnOffsetCommitRequest.GENERATION_ID_OR_MEMBER_EPOCH);
        String memberId = body.get(TxnOffsetCommitRequest.MEMBER_ID);
        if (generation < 0 && (memberId == null || memberId.isEmpty())) {
            return null;   // v0-2, or a producer that names no member: nothing to check (as Kafka)
        }
        ErrorCode membership = groups.validateOffsetCommit(groupId, memberId == null ? "" : memberId,
                body.get(TxnOffsetCommitRequest.GROUP_INSTANCE_ID), generation);
        return membership == ErrorCode.NONE ? null : membership;
    }

    private static Struct response(Map<TxnPartition, ErrorCode> errors) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        errors.forEach((tp, error) -> byTopic.computeIfAbsent(tp.topic(), name -> new ArrayList<>())
                .add(new Struct(TxnOffsetCommitResponsePartition.SCHEMA)
                        .set(TxnOffsetCommitResponsePartition.PARTITION_INDEX, tp.partition())
                        .set(TxnOffsetCommitResponsePartition.ERROR_CODE, error.code())));
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, results) -> topics.add(new Struct(TxnOffsetCommitResponseTopic.SCHEMA)
                .set(TxnOffsetCommitResponseTopic.NAME, name)
                .set(TxnOffsetCommitResponseTopic.PARTITIONS, results)));
        return new Struct(TxnOffsetCommitResponse.SCHEMA)
                .set(TxnOffsetCommitResponse.THROTTLE_TIME_MS, 0)
                .set(TxnOffsetCommitResponse.TOPICS, topics);
    }
}
