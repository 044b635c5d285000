package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.log.OffsetOutOfRangeException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsPartition;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsTopic;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CodecUnavailableException;
import dev.cairn.protocol.record.compression.DecompressedSizeExceededException;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.DecodeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * ListOffsets (key 2), versions 1-2: per partition the log start offset (timestamp -2, "earliest"), the high
 * watermark (-1, "latest"), the record with the largest timestamp (-3, KIP-734's "max timestamp": Kafka's clients
 * send it only from v7, but others send it whatever the version, and it costs nothing to answer right), or the first
 * record whose timestamp is at or above the requested one. Kafka's later sentinels (-4 earliest local, -5 latest
 * tiered and below) belong to versions Cairn does not serve: UNSUPPORTED_VERSION, never a search for a negative
 * time. Only the
 * partition's leader answers; others say NOT_LEADER_OR_FOLLOWER and the client refreshes its metadata. With the v2
 * isolation level read_committed, "latest" is the last stable offset (the first offset of the oldest open
 * transaction, or the high watermark); timestamp lookups still search up to the high watermark.
 */
public final class ListOffsetsHandler implements RequestHandler {
    /** Kafka's sentinel for "the log start offset". */
    public static final long EARLIEST_TIMESTAMP = -2;
    /** Kafka's sentinel for "the offset of the next record to be written" (the high watermark). */
    public static final long LATEST_TIMESTAMP = -1;
    /** KIP-734's sentinel for "the record with the largest timestamp". */
    public static final long MAX_TIMESTAMP = -3;
    /** The timestamp and offset of "no such record", and the timestamp Kafka answers for the sentinels. */
    static final long NO_TIMESTAMP = -1;
    static final long NO_OFFSET = -1;
    /**
     * A timestamp lookup finds a batch, then reads it; retention may delete the batch in between. The lookup
     * is repeated this often before the partition answers the retriable OFFSET_NOT_AVAILABLE.
     */
    static final int TIMESTAMP_LOOKUP_ATTEMPTS_MAX = 3;
    /** Read size for the batch a timestamp lookup found; the log returns that whole batch whatever the size. */
    private static final int ONE_BATCH_READ_BYTES = 1;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public ListOffsetsHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        Set<TopicPartition> seen = new HashSet<>();
        Set<TopicPartition> duplicated = new HashSet<>();
        for (Struct topic : body.get(ListOffsetsRequest.TOPICS)) {
            for (Struct partition : topic.get(ListOffsetsTopic.PARTITIONS)) {
                TopicPartition tp = new TopicPartition(topic.get(ListOffsetsTopic.NAME),
                        partition.get(ListOffsetsPartition.PARTITION_INDEX));
                if (!seen.add(tp)) {
                    duplicated.add(tp);
                }
            }
        }
        List<Struct> topicResponses = new ArrayList<>();
        boolean readCommitted = body.get(ListOffsetsRequest.ISOLATION_LEVEL) == FetchHandler.READ_COMMITTED;
        for (Struct topic : body.get(ListOffsetsRequest.TOPICS)) {
            String name = topic.get(ListOffsetsTopic.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            boolean describable = context.session().allowedOnTopic(AclOperation.DESCRIBE, name);
            List<Struct> partitionResponses = new ArrayList<>();
            for (Struct partition : topic.get(ListOffsetsTopic.PARTITIONS)) {
                int index = partition.get(ListOffsetsPartition.PARTITION_INDEX);
                TopicPartition tp = new TopicPartition(name, index);
                if (!describable) {
                    partitionResponses.add(answer(index, ErrorCode.TOPIC_AUTHORIZATION_FAILED, NO_TIMESTAMP,
                            NO_OFFSET));
                } else if (duplicated.contains(tp)) {
                    // Kafka refuses a partition named twice in one request rather than answer it twice.
                    partitionResponses.add(answer(index, ErrorCode.INVALID_REQUEST, NO_TIMESTAMP, NO_OFFSET));
                } else if (info == null || index < 0 || index >= info.partitionCount()) {
                    partitionResponses.add(answer(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, NO_TIMESTAMP,
                            NO_OFFSET));
                } else {
                    partitionResponses.add(listOffset(tp, partition.get(ListOffsetsPartition.TIMESTAMP),
                            readCommitted));
                }
            }
            topicResponses.add(new Struct(ListOffsetsTopicResponse.SCHEMA)
                    .set(ListOffsetsTopicResponse.NAME, name)
                    .set(ListOffsetsTopicResponse.PARTITIONS, partitionResponses));
        }
        return CompletableFuture.completedFuture(new Struct(ListOffsetsResponse.SCHEMA)
                .set(ListOffsetsResponse.THROTTLE_TIME_MS, 0)
                .set(ListOffsetsResponse.TOPICS, topicResponses));
    }

    private Struct listOffset(TopicPartition tp, long timestampMs, boolean readCommitted) {
        Partition partition = partitions.leaderReplica(tp).orElse(null);
        if (partition == null) {
            return answer(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER, NO_TIMESTAMP, NO_OFFSET);
        }
        if (timestampMs == EARLIEST_TIMESTAMP) {
            return answer(tp.partition(), ErrorCode.NONE, NO_TIMESTAMP, partition.logStartOffset());
        }
        if (timestampMs == LATEST_TIMESTAMP) {
            return answer(tp.partition(), ErrorCode.NONE, NO_TIMESTAMP,
                    readCommitted ? partition.lastStableOffset() : partition.highWatermark());
        }
        if (timestampMs < 0 && timestampMs != MAX_TIMESTAMP) {
            return answer(tp.partition(), ErrorCode.UNSUPPORTED_VERSION, NO_TIMESTAMP, NO_OFFSET);
        }
        try {
            Struct found;
            if (timestampMs == MAX_TIMESTAMP) {
                long maxTimestampMs = partition.maxTimestamp();
                found = maxTimestampMs == NO_TIMESTAMP ? answer(tp.partition(), ErrorCode.NONE, NO_TIMESTAMP, NO_OFFSET)
                        : byTimestamp(tp.partition(), partition, maxTimestampMs);
            } else {
                found = byTimestamp(tp.partition(), partition, timestampMs);
            }
            // As Kafka: a lookup by time finds only what the isolation level may fetch (below the last stable offset
            // for read_committed, the high watermark otherwise); past it, there is no such offset yet.
            long fetchableEnd = readCommitted ? partition.lastStableOffset() : partition.highWatermark();
            return found.get(ListOffsetsPartitionResponse.OFFSET) >= fetchableEnd
                    ? answer(tp.partition(), ErrorCode.NONE, NO_TIMESTAMP, NO_OFFSET) : found;
        } catch (StorageException | IOException e) {
            return answer(tp.partition(), ErrorCode.KAFKA_STORAGE_ERROR, NO_TIMESTAMP, NO_OFFSET);
        }
    }

    /**
     * The first record at or after {@code targetMs}, with its own timestamp, as Kafka answers: the log finds the
     * first batch whose max timestamp qualifies, and the records inside it pick the exact one.
     */
    private static Struct byTimestamp(int index, Partition partition, long targetMs) throws IOException {
        for (int attempt = 0; attempt < TIMESTAMP_LOOKUP_ATTEMPTS_MAX; attempt++) {
            OptionalLong batchOffset = partition.offsetForTimestamp(targetMs);
            if (batchOffset.isEmpty()) {
                return answer(index, ErrorCode.NONE, NO_TIMESTAMP, NO_OFFSET);
            }
            ByteBuffer bytes;
            try {
                LogSlice slice = partition.read(batchOffset.getAsLong(), ONE_BATCH_READ_BYTES);
                if (slice.isEmpty()) {
                    continue;
                }
                bytes = slice.readBytes();
            } catch (OffsetOutOfRangeException e) {
                // Retention deleted the batch after the lookup found it; the next lookup sees the new log start.
                continue;
            }
            return firstRecordAtOrAfter(index, new RecordBatch().wrap(bytes, 0), targetMs);
        }
        return answer(index, ErrorCode.OFFSET_NOT_AVAILABLE, NO_TIMESTAMP, NO_OFFSET);
    }

    private static Struct firstRecordAtOrAfter(int index, RecordBatch batch, long targetMs) {
        try {
            RecordCursor records = batch.records();
            while (records.next()) {
                if (records.timestamp() >= targetMs) {
                    return answer(index, ErrorCode.NONE, records.timestamp(), records.offset());
                }
            }
        } catch (DecodeException | DecompressedSizeExceededException | CodecUnavailableException e) {
            // The batch passed validation when it was produced, so this is an unreadable codec or an oversized
            // inflation here; the batch itself is still the right answer at batch granularity.
            return answer(index, ErrorCode.NONE, batch.maxTimestamp(), batch.baseOffset());
        }
        // No record reaches the batch's max timestamp: the producer stamped a max timestamp its records do not
        // have. The batch is where the log's time order says the target lies.
        return answer(index, ErrorCode.NONE, batch.maxTimestamp(), batch.baseOffset());
    }

    private static Struct answer(int index, ErrorCode error, long timestampMs, long offset) {
        return new Struct(ListOffsetsPartitionResponse.SCHEMA)
                .set(ListOffsetsPartitionResponse.PARTITION_INDEX, index)
                .set(ListOffsetsPartitionResponse.ERROR_CODE, error.code())
                .set(ListOffsetsPartitionResponse.TIMESTAMP, timestampMs)
                .set(ListOffsetsPartitionResponse.OFFSET, offset);
    }
}
