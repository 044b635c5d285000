package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.message.FetchRequest;
import dev.cairn.protocol.message.FetchRequest.FetchPartition;
import dev.cairn.protocol.message.FetchRequest.FetchTopic;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.message.FetchResponse.AbortedTransaction;
import dev.cairn.protocol.message.FetchResponse.PartitionData;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsPartition;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsTopic;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fetch and ListOffsets with isolation level read_committed (KIP-98): reads stop at the last stable offset, the
 * aborted transactions among the records returned are named so the client skips them, and "latest" is the last
 * stable offset; read_uncommitted readers see up to the high watermark as before.
 */
class FetchReadCommittedTest {
    private static final TopicPartition TXN_0 = new TopicPartition("txn", 0);
    private static final long PRODUCER = 4_000L;

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1).withTopic("txn", 1, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final FetchHandler fetch = new FetchHandler(metadata, partitions, new FetchWaiter(timer), () -> 0L);
    private final ListOffsetsHandler listOffsets = new ListOffsetsHandler(metadata, partitions);
    private Partition partition;
    private long raftIndex;

    @BeforeEach
    void aTransactionAbortedThenOneOpen() {
        partition = partitions.leadLocally(TXN_0);
        apply(new Command.Append(PartitionTestBatches.transactional(2, PRODUCER, (short) 0, 0), 1_000L));
        apply(new Command.TxnMarker(PRODUCER, (short) 0, false, 0, 1_000L));       // offsets 0-1 aborted at 2
        apply(new Command.Append(PartitionTestBatches.plain(1), 1_000L));          // offset 3
        apply(new Command.Append(PartitionTestBatches.transactional(2, PRODUCER, (short) 0, 2), 1_000L));  // 4-5
        assertEquals(6, partition.highWatermark());
        assertEquals(4, partition.lastStableOffset());
    }

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private void apply(Command command) {
        partition.apply(++raftIndex, 1, command);
    }

    private Struct fetchFrom(long offset, byte isolation) {
        Struct wanted = new Struct(FetchPartition.SCHEMA).set(FetchPartition.PARTITION, 0)
                .set(FetchPartition.FETCH_OFFSET, offset).set(FetchPartition.PARTITION_MAX_BYTES, 1 << 20);
        Struct body = new Struct(FetchRequest.SCHEMA).set(FetchRequest.MAX_WAIT_MS, 0).set(FetchRequest.MIN_BYTES, 1)
                .set(FetchRequest.MAX_BYTES, 1 << 20).set(FetchRequest.ISOLATION_LEVEL, isolation)
                .set(FetchRequest.TOPICS, List.of(new Struct(FetchTopic.SCHEMA).set(FetchTopic.TOPIC, "txn")
                        .set(FetchTopic.PARTITIONS, List.of(wanted))));
        Struct response = call(fetch, request(ApiKey.FETCH, 11, body));
        return response.get(FetchResponse.RESPONSES).get(0).get(FetchResponse.FetchableTopicResponse.PARTITIONS)
                .get(0);
    }

    /** One past the last offset of the records returned, or the fetch offset when none were. */
    private static long endOf(Struct data, long fetchOffset) {
        ByteBuffer records = ByteBufferRecords.bufferOf(data.get(PartitionData.RECORDS)).duplicate();
        long end = fetchOffset;
        while (records.remaining() > 0) {
            RecordBatch batch = RecordBatch.of(records.slice());
            end = batch.lastOffset() + 1;
            records.position(records.position() + batch.sizeInBytes());
        }
        return end;
    }

    @Test
    void readCommittedStopsAtTheLastStableOffsetAndNamesTheAbortedTransaction() {
        Struct data = fetchFrom(0, FetchHandler.READ_COMMITTED);

        assertEquals(4, endOf(data, 0), "the open transaction at 4 is not returned");
        assertEquals(6L, data.get(PartitionData.HIGH_WATERMARK));
        assertEquals(4L, data.get(PartitionData.LAST_STABLE_OFFSET));
        List<Struct> aborted = data.get(PartitionData.ABORTED_TRANSACTIONS);
        assertEquals(1, aborted.size());
        assertEquals(PRODUCER, aborted.get(0).get(AbortedTransaction.PRODUCER_ID));
        assertEquals(0L, aborted.get(0).get(AbortedTransaction.FIRST_OFFSET));
    }

    @Test
    void readCommittedAtTheLastStableOffsetReturnsNothingYetAndNoError() {
        Struct data = fetchFrom(4, FetchHandler.READ_COMMITTED);

        assertEquals((short) 0, data.get(PartitionData.ERROR_CODE));
        assertEquals(4, endOf(data, 4));
        assertTrue(data.get(PartitionData.ABORTED_TRANSACTIONS).isEmpty());
    }

    @Test
    void readUncommittedReadsToTheHighWatermarkWithoutAbortedTransactions() {
        Struct data = fetchFrom(0, (byte) 0);

        assertEquals(6, endOf(data, 0));
        assertEquals(4L, data.get(PartitionData.LAST_STABLE_OFFSET));
        assertTrue(data.get(PartitionData.ABORTED_TRANSACTIONS).isEmpty());
    }

    @Test
    void latestIsTheLastStableOffsetForReadCommitted() {
        assertEquals(4L, latest(FetchHandler.READ_COMMITTED));
        assertEquals(6L, latest((byte) 0));
    }

    @Test
    void aLookupByTimeFindsOnlyWhatTheIsolationLevelMayFetch() {
        long later = System.currentTimeMillis() + 3_600_000L;
        apply(new Command.Append(PartitionTestBatches.transactional(2, PRODUCER, (short) 0, 4, later), 1_000L));
        assertEquals(8, partition.highWatermark());
        assertEquals(4, partition.lastStableOffset());   // offsets 4-7: the open transaction
        assertEquals(-1L, offsetFor(later - 1, FetchHandler.READ_COMMITTED));
        assertEquals(6L, offsetFor(later - 1, (byte) 0));
        assertEquals(-1L, offsetFor(MAX_TIMESTAMP, FetchHandler.READ_COMMITTED));
        assertEquals(6L, offsetFor(MAX_TIMESTAMP, (byte) 0));
        assertEquals(0L, offsetFor(0, FetchHandler.READ_COMMITTED));   // below the last stable offset: found
    }

    private static final long MAX_TIMESTAMP = -3;

    private long latest(byte isolation) {
        return offsetFor(-1L, isolation);
    }

    private long offsetFor(long timestampMs, byte isolation) {
        Struct body = new Struct(ListOffsetsRequest.SCHEMA).set(ListOffsetsRequest.REPLICA_ID, -1)
                .set(ListOffsetsRequest.ISOLATION_LEVEL, isolation)
                .set(ListOffsetsRequest.TOPICS, List.of(new Struct(ListOffsetsTopic.SCHEMA)
                        .set(ListOffsetsTopic.NAME, "txn").set(ListOffsetsTopic.PARTITIONS, List.of(
                                new Struct(ListOffsetsPartition.SCHEMA).set(ListOffsetsPartition.PARTITION_INDEX, 0)
                                        .set(ListOffsetsPartition.TIMESTAMP, timestampMs)))));
        Struct response = call(listOffsets, request(ApiKey.LIST_OFFSETS, 2, body));
        return response.get(ListOffsetsResponse.TOPICS).get(0).get(ListOffsetsTopicResponse.PARTITIONS).get(0)
                .get(ListOffsetsPartitionResponse.OFFSET);
    }
}
