package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.log.OffsetOutOfRangeException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.TransactionIndex;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.FetchRequest;
import dev.cairn.protocol.message.FetchRequest.FetchPartition;
import dev.cairn.protocol.message.FetchRequest.FetchTopic;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.message.FetchResponse.AbortedTransaction;
import dev.cairn.protocol.message.FetchResponse.FetchableTopicResponse;
import dev.cairn.protocol.message.FetchResponse.PartitionData;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.RecordsPayload;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Fetch (key 1), sessionless (session id 0 keeps every client on full fetches): exactly the requested
 * partitions, each from its fetch offset up to the high watermark (read_committed: the last stable offset, with the
 * aborted transactions among the records returned), the batch containing the fetch offset whole
 * (clients skip the records below it), at least one batch even beyond max bytes (KIP-74). With less than
 * {@code min.bytes} available the fetch parks in {@link FetchWaiter} until data arrives or {@code max.wait.ms}.
 * Records are log file slices, sent zero-copy by the network layer.
 */
public final class FetchHandler implements RequestHandler {
    private static final ByteBuffer NO_RECORDS = ByteBuffer.allocate(0);
    /** Fetch's isolation level that stops at the last stable offset and names aborted transactions (KIP-98). */
    static final byte READ_COMMITTED = 1;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final FetchWaiter waiter;
    private final LongSupplier clockMs;

    public FetchHandler(MetadataService metadata, ReplicatedPartitions partitions, FetchWaiter waiter,
            LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.waiter = waiter;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        long waitMs = Math.min(Math.max(0, body.get(FetchRequest.MAX_WAIT_MS)), Limits.FETCH_WAIT_MS_MAX);
        return attempt(context.session(), body, clockMs.getAsLong() + waitMs);
    }

    private CompletableFuture<Struct> attempt(ConnectionSession session, Struct body, long deadlineMs) {
        Reads reads = readAll(session, body);
        long remainingMs = deadlineMs - clockMs.getAsLong();
        if (reads.bytes >= body.get(FetchRequest.MIN_BYTES) || reads.anyError || remainingMs <= 0) {
            return CompletableFuture.completedFuture(reads.response);
        }
        return waiter.await(reads.partitions, remainingMs).thenCompose(woken -> attempt(session, body, deadlineMs));
    }

    /** One pass over the requested partitions. */
    private static final class Reads {
        Struct response;
        long bytes;
        boolean anyError;
        final List<TopicPartition> partitions = new ArrayList<>();
    }

    private Reads readAll(ConnectionSession session, Struct body) {
        Reads reads = new Reads();
        long budget = Math.max(0, body.get(FetchRequest.MAX_BYTES));
        boolean readCommitted = body.get(FetchRequest.ISOLATION_LEVEL) == READ_COMMITTED;
        List<Struct> topicResponses = new ArrayList<>();
        for (Struct topic : body.get(FetchRequest.TOPICS)) {
            String name = topic.get(FetchTopic.TOPIC);
            TopicInfo info = metadata.image().topics().get(name);
            boolean readable = session.allowedOnTopic(AclOperation.READ, name);
            List<Struct> partitionResponses = new ArrayList<>();
            for (Struct fetch : topic.get(FetchTopic.PARTITIONS)) {
                int partition = fetch.get(FetchPartition.PARTITION);
                TopicPartition tp = new TopicPartition(name, partition);
                reads.partitions.add(tp);
                int maxBytes = (int) Math.min(Math.max(0, fetch.get(FetchPartition.PARTITION_MAX_BYTES)), budget);
                boolean firstData = reads.bytes == 0;
                Struct data = !readable ? error(partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                        : info == null || partition < 0 || partition >= info.partitionCount()
                        ? error(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                        : read(tp, fetch.get(FetchPartition.CURRENT_LEADER_EPOCH),
                                fetch.get(FetchPartition.FETCH_OFFSET), maxBytes, firstData || maxBytes > 0,
                                readCommitted);
                int size = data.get(PartitionData.RECORDS).sizeInBytes();
                reads.bytes += size;
                budget = Math.max(0, budget - size);
                reads.anyError |= data.get(PartitionData.ERROR_CODE) != ErrorCode.NONE.code();
                partitionResponses.add(data);
            }
            topicResponses.add(new Struct(FetchableTopicResponse.SCHEMA)
                    .set(FetchableTopicResponse.TOPIC, name)
                    .set(FetchableTopicResponse.PARTITIONS, partitionResponses));
        }
        reads.response = new Struct(FetchResponse.SCHEMA)
                .set(FetchResponse.THROTTLE_TIME_MS, 0)
                .set(FetchResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(FetchResponse.SESSION_ID, 0)
                .set(FetchResponse.RESPONSES, topicResponses);
        return reads;
    }

    private Struct read(TopicPartition tp, int currentLeaderEpoch, long fetchOffset, int maxBytes, boolean mayRead,
            boolean readCommitted) {
        Optional<Partition> replica = partitions.leaderReplica(tp);
        if (replica.isEmpty()) {
            return error(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        if (currentLeaderEpoch != OffsetForLeaderEpochHandler.NO_EPOCH) {
            // KIP-320 (Fetch v9+): a client whose metadata names another leader epoch refreshes it first.
            ErrorCode fenced = OffsetForLeaderEpochHandler.fence(currentLeaderEpoch,
                    partitions.leadership(tp).leaderEpoch());
            if (fenced != ErrorCode.NONE) {
                return error(tp.partition(), fenced);
            }
        }
        Partition partition = replica.get();
        long highWatermark = partition.highWatermark();
        long lastStableOffset = partition.lastStableOffset();
        long logStartOffset = partition.logStartOffset();
        RecordsPayload records = ByteBufferRecords.of(NO_RECORDS);
        List<Struct> aborted = List.of();
        try {
            if (mayRead) {
                // Budget spent: later partitions return nothing this time rather than exceed max bytes.
                if (readCommitted) {
                    // The batches and the aborted transactions among them, read consistently with each other.
                    TransactionIndex.CommittedRead read = partition.readCommitted(fetchOffset, Math.max(1, maxBytes),
                            lastStableOffset);
                    records = toPayload(read.slice());
                    aborted = abortedTransactions(read.aborted());
                } else {
                    records = toPayload(partition.read(fetchOffset, Math.max(1, maxBytes)));
                }
            } else if (fetchOffset < logStartOffset || fetchOffset > highWatermark) {
                return outOfRange(tp.partition(), highWatermark, logStartOffset);
            }
        } catch (OffsetOutOfRangeException e) {
            return outOfRange(tp.partition(), highWatermark, logStartOffset);
        } catch (StorageException | IOException e) {
            return error(tp.partition(), ErrorCode.KAFKA_STORAGE_ERROR);
        }
        return new Struct(PartitionData.SCHEMA)
                .set(PartitionData.PARTITION_INDEX, tp.partition())
                .set(PartitionData.ERROR_CODE, ErrorCode.NONE.code())
                .set(PartitionData.HIGH_WATERMARK, highWatermark)
                .set(PartitionData.LAST_STABLE_OFFSET, lastStableOffset)
                .set(PartitionData.LOG_START_OFFSET, logStartOffset)
                .set(PartitionData.ABORTED_TRANSACTIONS, aborted)
                .set(PartitionData.PREFERRED_READ_REPLICA, -1)
                .set(PartitionData.RECORDS, records);
    }

    /** The aborted transactions a read_committed client skips among the batches returned. */
    private static List<Struct> abortedTransactions(List<TransactionIndex.Aborted> read) {
        List<Struct> aborted = new ArrayList<>();
        for (TransactionIndex.Aborted txn : read) {
            aborted.add(new Struct(AbortedTransaction.SCHEMA)
                    .set(AbortedTransaction.PRODUCER_ID, txn.producerId())
                    .set(AbortedTransaction.FIRST_OFFSET, txn.firstOffset()));
        }
        return aborted;
    }

    private static RecordsPayload toPayload(LogSlice slice) throws IOException {
        if (slice.isEmpty()) {
            return ByteBufferRecords.of(NO_RECORDS);
        }
        if (slice.fileChannel() != null) {
            return new LogSlicePayload(slice);
        }
        return ByteBufferRecords.of(slice.readBytes());
    }

    private static Struct outOfRange(int partition, long highWatermark, long logStartOffset) {
        return error(partition, ErrorCode.OFFSET_OUT_OF_RANGE)
                .set(PartitionData.HIGH_WATERMARK, highWatermark)
                .set(PartitionData.LAST_STABLE_OFFSET, highWatermark)
                .set(PartitionData.LOG_START_OFFSET, logStartOffset);
    }

    private static Struct error(int partition, ErrorCode error) {
        return new Struct(PartitionData.SCHEMA)
                .set(PartitionData.PARTITION_INDEX, partition)
                .set(PartitionData.ERROR_CODE, error.code())
                .set(PartitionData.HIGH_WATERMARK, -1L)
                .set(PartitionData.LAST_STABLE_OFFSET, -1L)
                .set(PartitionData.LOG_START_OFFSET, -1L)
                .set(PartitionData.ABORTED_TRANSACTIONS, List.of())
                .set(PartitionData.PREFERRED_READ_REPLICA, -1)
                .set(PartitionData.RECORDS, ByteBufferRecords.of(NO_RECORDS));
    }
}
