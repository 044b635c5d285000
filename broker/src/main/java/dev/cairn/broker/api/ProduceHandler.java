package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceRequest.PartitionProduceData;
import dev.cairn.protocol.message.ProduceRequest.TopicProduceData;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.PartitionProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.TopicProduceResponse;
import dev.cairn.protocol.record.BatchValidationConfig;
import dev.cairn.protocol.record.BatchValidationResult;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.ProduceBatchValidator;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.RecordsPayload;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Produce (key 0): validates each partition's batch on the leader (kafka-protocol.md A.2, exact error codes),
 * stamps the append time, and replicates it through the partition's Raft group. acks=1 and acks=all both answer
 * after the Raft commit (a majority has the batch); acks=0 answers nothing.
 */
public final class ProduceHandler implements RequestHandler {
    /** The log append time answered for CreateTime topics (and for a retried batch already appended). */
    private static final long NO_LOG_APPEND_TIME = -1;
    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final BatchValidationConfig validation;
    /** The largest batch a topic's {@code max.message.bytes} may allow: what the Raft groups carry. */
    private final int topicBatchBytesMax;
    private final LongSupplier clockMs;
    private final TransactionVerifier verifier;

    public ProduceHandler(MetadataService metadata, ReplicatedPartitions partitions, BatchValidationConfig validation,
            LongSupplier clockMs) {
        this(metadata, partitions, validation, validation.messageBytesMax(), clockMs, null);
    }

    /**
     * @param topicBatchBytesMax the largest batch a topic's {@code max.message.bytes} may allow, above the broker's
     *     {@code message.max.bytes} (the default in {@code validation}): the largest the Raft groups carry
     * @param transactions verifies a transactional batch that opens a transaction (KIP-890); null: not verified
     */
    public ProduceHandler(MetadataService metadata, ReplicatedPartitions partitions, BatchValidationConfig validation,
            int topicBatchBytesMax, LongSupplier clockMs, TransactionCoordinator transactions) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.validation = validation;
        this.topicBatchBytesMax = topicBatchBytesMax;
        this.clockMs = clockMs;
        this.verifier = new TransactionVerifier(transactions, partitions);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        short acks = body.get(ProduceRequest.ACKS);
        long timeoutMs = Math.max(1, body.get(ProduceRequest.TIMEOUT_MS));
        long nowMs = clockMs.getAsLong();
        // Kafka: a transactional producer needs WRITE on its transactional id as well as on the topics.
        String transactionalId = body.get(ProduceRequest.TRANSACTIONAL_ID);
        boolean transactionAllowed = transactionalId == null || context.session().allowed(AclOperation.WRITE,
                dev.cairn.broker.security.acl.ResourceType.TRANSACTIONAL_ID, transactionalId);
        List<CompletableFuture<Struct>> topicResponses = new ArrayList<>();
        for (Struct topic : body.get(ProduceRequest.TOPIC_DATA)) {
            String name = topic.get(TopicProduceData.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            // Kafka checks WRITE before existence: a client without it learns nothing about the topic.
            boolean writable = context.session().allowedOnTopic(AclOperation.WRITE, name);
            // Once per topic: a request spread over many partitions of one topic checks each batch alike.
            BatchValidationConfig topicValidation = info == null ? null : validationFor(info);
            List<CompletableFuture<Struct>> partitionResponses = new ArrayList<>();
            for (Struct partitionData : topic.get(TopicProduceData.PARTITION_DATA)) {
                int partition = partitionData.get(PartitionProduceData.INDEX);
                ErrorCode precheck = acks == 0 || acks == 1 || acks == -1 ? null : ErrorCode.INVALID_REQUIRED_ACKS;
                if (precheck == null && !transactionAllowed) {
                    precheck = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
                }
                if (precheck == null && !writable) {
                    precheck = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
                }
                if (precheck == null && (info == null || partition < 0 || partition >= info.partitionCount())) {
                    precheck = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
                }
                if (precheck == null && InternalTopics.isInternal(name)) {
                    precheck = ErrorCode.INVALID_TOPIC_EXCEPTION;   // as Kafka: "cannot append to internal topic"
                }
                if (precheck != null) {
                    partitionResponses.add(CompletableFuture.completedFuture(error(partition, precheck)));
                    continue;
                }
                partitionResponses.add(produce(new TopicPartition(name, partition),
                        partitionData.get(PartitionProduceData.RECORDS), request.apiVersion(), nowMs, timeoutMs,
                        info.configs(), topicValidation, transactionalId));
            }
            topicResponses.add(allOf(partitionResponses).thenApply(list -> new Struct(TopicProduceResponse.SCHEMA)
                    .set(TopicProduceResponse.NAME, name)
                    .set(TopicProduceResponse.PARTITION_RESPONSES, list)));
        }
        CompletableFuture<Struct> response = allOf(topicResponses).thenApply(list -> new Struct(ProduceResponse.SCHEMA)
                .set(ProduceResponse.RESPONSES, list)
                .set(ProduceResponse.THROTTLE_TIME_MS, 0));
        return acks == 0 ? CompletableFuture.completedFuture(null) : response;
    }

    /**
     * The broker's validation settings with the topic's {@code max.message.bytes} override, if it has one. As in
     * Kafka, a topic may allow more than the broker's {@code message.max.bytes}, up to the largest batch the Raft
     * groups carry ({@code topicBatchBytesMax}: about 16 MiB on Cairn's engine; the broker's own limit on Ratis,
     * whose log buffers are sized from it, RatisSettings#withBatchBytesMax). A larger batch would never commit, so it
     * is answered MESSAGE_TOO_LARGE at once.
     */
    private BatchValidationConfig validationFor(TopicInfo topic) {
        BatchValidationConfig topicValidation = validation.withLogAppendTime(TopicConfigs.logAppendTime(
                topic.configs())).withKeyRequired(TopicConfigs.compacted(topic.configs()));
        String override = topic.configs().get(TopicConfigs.MAX_MESSAGE_BYTES);
        if (override == null) {
            return topicValidation;
        }
        int topicBytesMax = Integer.parseInt(override.trim());
        // Below a batch header (0 is a valid setting) every batch is too large, as it is for Kafka.
        return topicValidation.withMessageBytesMax(Math.max(RecordBatchDescriptor.HEADER_BYTES,
                Math.min(topicBytesMax, topicBatchBytesMax)));
    }

    private CompletableFuture<Struct> produce(TopicPartition tp, RecordsPayload records, short version, long nowMs,
            long timeoutMs, java.util.Map<String, String> topicConfigs, BatchValidationConfig validation,
            String transactionalId) {
        if (!(records instanceof ByteBufferRecords bytes)) {
            return CompletableFuture.completedFuture(error(tp.partition(), ErrorCode.INVALID_RECORD));
        }
        if (!partitions.leadership(tp).local()) {
            return CompletableFuture.completedFuture(error(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER));
        }
        ByteBuffer batch = bytes.buffer();
        BatchValidationResult validated = ProduceBatchValidator.validate(batch, version, validation, nowMs);
        if (!validated.isValid()) {
            return CompletableFuture.completedFuture(error(tp.partition(), validated.errorCode()));
        }
        ByteBuffer stored = TopicBatchRewriter.rewrite(batch, topicConfigs, validation, nowMs);
        long logAppendTimeMs = validation.logAppendTime() ? nowMs : NO_LOG_APPEND_TIME;
        return verifier.submitInOrder(transactionalId, tp, stored, refused -> error(tp.partition(), refused),
                () -> append(tp, stored, nowMs, timeoutMs, logAppendTimeMs));
    }

    private CompletableFuture<Struct> append(TopicPartition tp, ByteBuffer stored, long nowMs, long timeoutMs,
            long logAppendTimeMs) {
        return partitions.submit(tp, new Command.Append(stored, nowMs), timeoutMs).thenApply(result -> {
            if (result instanceof Result.Appended appended) {
                return new Struct(PartitionProduceResponse.SCHEMA)
                        .set(PartitionProduceResponse.INDEX, tp.partition())
                        .set(PartitionProduceResponse.ERROR_CODE, ErrorCode.NONE.code())
                        .set(PartitionProduceResponse.BASE_OFFSET, appended.baseOffset())
                        .set(PartitionProduceResponse.LOG_APPEND_TIME_MS,
                                appended.duplicate() ? NO_LOG_APPEND_TIME : logAppendTimeMs)
                        .set(PartitionProduceResponse.LOG_START_OFFSET, appended.logStartOffset());
            }
            ErrorCode code = result instanceof Result.Rejected rejected ? rejected.error()
                    : ErrorCode.UNKNOWN_SERVER_ERROR;
            // The Java client acts on UNKNOWN_PRODUCER_ID only when it learns the log start offset.
            long logStartOffset = partitions.leaderReplica(tp).map(p -> p.logStartOffset()).orElse(-1L);
            return error(tp.partition(), code).set(PartitionProduceResponse.LOG_START_OFFSET, logStartOffset);
        });
    }

    private static Struct error(int partition, ErrorCode error) {
        return new Struct(PartitionProduceResponse.SCHEMA)
                .set(PartitionProduceResponse.INDEX, partition)
                .set(PartitionProduceResponse.ERROR_CODE, error.code())
                .set(PartitionProduceResponse.BASE_OFFSET, -1L)
                .set(PartitionProduceResponse.LOG_APPEND_TIME_MS, -1L)
                .set(PartitionProduceResponse.LOG_START_OFFSET, -1L);
    }

    static <T> CompletableFuture<List<T>> allOf(List<CompletableFuture<T>> futures) {
        if (futures.size() == 1) {
            // The common produce (one topic, one partition) without allOf's tree of futures and a stream.
            return futures.get(0).thenApply(Collections::singletonList);
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> {
            List<T> results = new ArrayList<>(futures.size());
            for (CompletableFuture<T> future : futures) {
                results.add(future.join());
            }
            return Collections.unmodifiableList(results);
        });
    }
}
