package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.TxnMarker;
import dev.cairn.broker.partition.TransactionIndex.Aborted;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.ControlBatch;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Transactions in the partition core: transactional batches hold the last stable offset back until their marker,
 * an abort marker records the aborted transaction, markers are control batches in the log, a fenced marker is
 * refused, and all of it survives a snapshot, through the leader's placements as through the old format.
 */
class PartitionTransactionsTest {
    private static final Path DIR = Path.of("/data/txn-0");
    private static final long PRODUCER = 4_000L;
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final InMemoryOffsetStore offsets = new InMemoryOffsetStore(io);
    private final ProducerStateTable leaderProducers = new ProducerStateTable();
    private long raftIndex;
    private long nextOffset;

    private Partition open() {
        return new Partition("txn", 0, Log.open(io, DIR, LogConfig.defaults().withSegmentBytes(4096)), offsets);
    }

    /** A client batch of the producer's transaction, sequences from {@code baseSequence}. */
    static ByteBuffer transactionalBatch(int records, long producerId, short epoch, int baseSequence) {
        ByteBuffer batch = PartitionTest.clientBatch(records, producerId, epoch, baseSequence);
        int attributes = batch.getShort(batch.position() + RecordBatchDescriptor.ATTRIBUTES_OFFSET);
        batch.putShort(batch.position() + RecordBatchDescriptor.ATTRIBUTES_OFFSET,
                (short) (attributes | RecordBatchDescriptor.TRANSACTIONAL_MASK));
        CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(batch.position() + RecordBatchDescriptor.ATTRIBUTES_OFFSET));
        batch.putInt(batch.position() + RecordBatchDescriptor.CRC_OFFSET, (int) crc.getValue());
        assertTrue(RecordBatch.of(batch).isChecksumValid() && RecordBatch.of(batch).isTransactional());
        return batch;
    }

    /** Places and commits an append as the leader and every replica would (the write-once path). */
    private Result placeAndApply(Partition partition, ByteBuffer batch) {
        Command placement = AppendPlanner.decide(new Command.Append(batch.duplicate(), 5_000L), leaderProducers,
                nextOffset, new RecordBatch());
        return commit(partition, placement, batch);
    }

    private Result placeAndApply(Partition partition, TxnMarker marker) {
        Command placement = AppendPlanner.decide(marker, leaderProducers, nextOffset);
        return commit(partition, placement, AppendPlanner.markerBatch(marker));
    }

    private Result commit(Partition partition, Command placement, ByteBuffer batch) {
        if (placement instanceof AppendAt at) {
            AppendPlanner.recordProducer(leaderProducers, at);
            nextOffset = at.lastOffset() + 1;
            // Through the codec, as the Raft log carries it.
            at = (AppendAt) CommandCodec.decodeCommand(PlacementCodec.encode(at));
            partition.placements().place(at, batch.duplicate(), 1);
            return partition.apply(++raftIndex, 1, at);
        }
        return partition.apply(++raftIndex, 1, placement);
    }

    private static TxnMarker marker(boolean commit, short epoch) {
        return new TxnMarker(PRODUCER, epoch, commit, 0, 6_000L);
    }

    @Test
    void anOpenTransactionHoldsTheLastStableOffsetUntilItsCommitMarker() throws IOException {
        Partition partition = open();
        placeAndApply(partition, PartitionTest.clientBatch(2, -1, (short) -1, -1));
        placeAndApply(partition, transactionalBatch(3, PRODUCER, (short) 0, 0));
        placeAndApply(partition, transactionalBatch(1, PRODUCER, (short) 0, 3));
        assertEquals(6, partition.highWatermark());
        assertEquals(2, partition.lastStableOffset());
        LogSlice committedRead = partition.readCommitted(0, Integer.MAX_VALUE, partition.lastStableOffset()).slice();
        assertEquals(2, committedRead.nextOffset(), "read_committed stops before the open transaction");

        Result.Appended marker = assertInstanceOf(Result.Appended.class, placeAndApply(partition,
                marker(true, (short) 0)));
        assertEquals(6, marker.baseOffset());
        assertEquals(7, partition.lastStableOffset());
        assertEquals(List.of(), partition.abortedTransactions(0, 7));
        RecordBatch control = RecordBatch.of(partition.read(6, Integer.MAX_VALUE).readBytes());
        assertTrue(control.isControl() && control.isChecksumValid());
        assertEquals(ControlBatch.COMMIT, ControlBatch.type(control));
        assertEquals(6, control.baseOffset());
        assertEquals(1, control.partitionLeaderEpoch());
    }

    @Test
    void anAbortMarkerRecordsTheAbortedTransactionForReadCommittedFetches() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(3, PRODUCER, (short) 0, 0));
        placeAndApply(partition, marker(false, (short) 0));
        placeAndApply(partition, PartitionTest.clientBatch(1, -1, (short) -1, -1));

        assertEquals(5, partition.lastStableOffset());
        assertEquals(List.of(new Aborted(PRODUCER, 0, 3)), partition.abortedTransactions(0, 5));
        assertEquals(List.of(), partition.abortedTransactions(4, 5), "the fetch starts after the abort marker");
    }

    @Test
    void aMarkerOfAFencedEpochIsRefusedAndANewerOneFencesTheOldEpoch() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(1, PRODUCER, (short) 2, 0));
        Result.Rejected stale = assertInstanceOf(Result.Rejected.class, placeAndApply(partition,
                marker(false, (short) 1)));
        assertEquals(ErrorCode.INVALID_PRODUCER_EPOCH, stale.error());
        assertEquals(0, partition.lastStableOffset(), "the transaction is still open");

        placeAndApply(partition, marker(false, (short) 3));   // the coordinator aborted with a bumped epoch
        assertEquals(2, partition.lastStableOffset());
        Result.Rejected zombie = assertInstanceOf(Result.Rejected.class, placeAndApply(partition,
                transactionalBatch(1, PRODUCER, (short) 2, 1)));
        assertEquals(ErrorCode.INVALID_PRODUCER_EPOCH, zombie.error());
    }

    @Test
    void transactionsSurviveASnapshotAndTheReplayAfterIt() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(2, PRODUCER, (short) 0, 0));
        placeAndApply(partition, marker(false, (short) 0));
        placeAndApply(partition, transactionalBatch(1, PRODUCER, (short) 0, 2));
        PartitionSnapshot snapshot = PartitionSnapshot.decode(ByteBuffer.wrap(partition.snapshot().encode()));
        long snapshotIndex = raftIndex;
        placeAndApply(partition, marker(true, (short) 0));
        partition.close();

        Partition reopened = open();
        reopened.restore(snapshotIndex, snapshot);
        assertEquals(3, reopened.lastStableOffset(), "the transaction open at the snapshot");
        assertEquals(List.of(new Aborted(PRODUCER, 0, 2)), reopened.abortedTransactions(0, 4));
        long markerIndex = snapshotIndex + 1;
        AppendAt committed = (AppendAt) AppendPlanner.decide(marker(true, (short) 0), new ProducerStateTable(), 4);
        reopened.apply(markerIndex, 1, committed, true);
        assertEquals(5, reopened.lastStableOffset());
    }

    /**
     * The log start moving (DeleteRecords here; retention goes the same way) drops, in apply order, every aborted
     * transaction whose marker lies below it, and read_committed fetches from the log start on name the same ones as
     * before. A snapshot restored into the log afterwards (its start later than the snapshot's) holds none below it.
     */
    @Test
    void abortedTransactionsBelowTheLogStartLeaveWithIt() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(2, PRODUCER, (short) 0, 0));
        placeAndApply(partition, marker(false, (short) 0));
        placeAndApply(partition, transactionalBatch(1, PRODUCER, (short) 0, 2));
        placeAndApply(partition, marker(false, (short) 0));
        placeAndApply(partition, PartitionTest.clientBatch(1, -1, (short) -1, -1));
        Aborted first = new Aborted(PRODUCER, 0, 2);
        Aborted second = new Aborted(PRODUCER, 3, 4);
        assertEquals(List.of(first, second), partition.abortedTransactions(0, 6));
        PartitionSnapshot snapshot = PartitionSnapshot.decode(ByteBuffer.wrap(partition.snapshot().encode()));
        long snapshotIndex = raftIndex;
        List<List<Aborted>> fromTheLogStart = List.of(partition.abortedTransactions(3, 6),
                partition.abortedTransactions(4, 5), partition.abortedTransactions(5, 6));
        // As a leader whose view counts the bound full: the log start gives the dropped one's room back at once.
        partition.verifications().reset(java.util.Set.of(), TransactionIndex.ABORTED_MAX, false);
        assertTrue(!partition.verifications().hasRoomToOpen());

        partition.apply(++raftIndex, 1, new Command.DeleteRecords(3));

        assertTrue(partition.verifications().hasRoomToOpen());

        assertEquals(3, partition.logStartOffset());
        assertEquals(List.of(second), partition.abortedTransactions(0, 6), "the first one's marker left the log");
        assertEquals(fromTheLogStart, List.of(partition.abortedTransactions(3, 6),
                partition.abortedTransactions(4, 5), partition.abortedTransactions(5, 6)));
        partition.apply(++raftIndex, 1, new Command.DeleteRecords(5));
        assertEquals(List.of(), partition.abortedTransactions(0, 6));

        partition.restore(snapshotIndex, snapshot);
        assertEquals(5, partition.logStartOffset(), "the log kept its later start");
        assertEquals(List.of(), partition.abortedTransactions(0, 6), "none below the log start after a restore");
    }

    /**
     * An open transaction whose first records left the log (the log start moved past them) holds the last stable
     * offset at the log start, not below it, as Kafka's UnifiedLog bounds its first unstable offset: a read_committed
     * consumer asking for the latest offset is not sent below the log start.
     */
    @Test
    void theLastStableOffsetIsNeverBelowTheLogStart() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(2, PRODUCER, (short) 0, 0));
        placeAndApply(partition, PartitionTest.clientBatch(1, -1, (short) -1, -1));
        assertEquals(0, partition.lastStableOffset());
        partition.apply(++raftIndex, 1, new Command.DeleteRecords(2));
        assertEquals(2, partition.lastStableOffset());
        placeAndApply(partition, marker(true, (short) 0));
        assertEquals(4, partition.lastStableOffset());
    }

    @Test
    void transactionalOffsetsTakeEffectOnlyWhenTheTransactionCommits() {
        Partition partition = open();
        partition.apply(++raftIndex, 1, new Command.TxnCommitOffset(PRODUCER, (short) 0, "etl", 42, 1, "m", 7L));
        assertTrue(partition.committedOffset("etl").isEmpty(), "pending until the transaction ends");
        assertTrue(partition.hasPendingOffset("etl"));
        PartitionSnapshot snapshot = PartitionSnapshot.decode(ByteBuffer.wrap(partition.snapshot().encode()));

        partition.apply(++raftIndex, 1, new Command.TxnEndOffsets(PRODUCER, (short) 0, false));
        assertTrue(partition.committedOffset("etl").isEmpty(), "an abort drops them");
        assertTrue(!partition.hasPendingOffset("etl"));

        partition.restore(1, snapshot);
        assertTrue(partition.hasPendingOffset("etl"), "pending offsets are in the snapshot");
        partition.apply(2, 1, new Command.TxnEndOffsets(PRODUCER, (short) 0, true));
        assertEquals(42, partition.committedOffset("etl").orElseThrow().offset());
        assertEquals("m", partition.committedOffset("etl").orElseThrow().metadata());
    }

    @Test
    void aCommitMarkerCommitsTheOffsetsItsTransactionHeldOnItsPartition() {
        Partition partition = open();
        placeAndApply(partition, transactionalBatch(1, PRODUCER, (short) 0, 0));
        partition.apply(++raftIndex, 1, new Command.TxnCommitOffset(PRODUCER, (short) 0, "etl", 9, -1, null, 7L));
        assertEquals(ErrorCode.INVALID_PRODUCER_EPOCH, assertInstanceOf(Result.Rejected.class, partition.apply(
                ++raftIndex, 1, new Command.TxnCommitOffset(PRODUCER, (short) -1, "etl", 3, -1, null, 7L))).error());
        placeAndApply(partition, marker(true, (short) 0));
        assertEquals(9, partition.committedOffset("etl").orElseThrow().offset());
        partition.apply(++raftIndex, 1, new Command.TxnEndOffsets(PRODUCER, (short) 0, true));
        assertEquals(9, partition.committedOffset("etl").orElseThrow().offset(), "a late end changes nothing");
    }

    @Test
    void aMarkerOfTheOldFormatIsPlacedAsItApplies() {
        Partition partition = open();
        partition.apply(1, 1, new Command.Append(transactionalBatch(2, PRODUCER, (short) 0, 0), 5_000L));
        assertEquals(0, partition.lastStableOffset());
        Command decoded = CommandCodec.decodeCommand(CommandCodec.encode(marker(false, (short) 0)));

        Result.Appended appended = assertInstanceOf(Result.Appended.class, partition.apply(2, 1, decoded));

        assertEquals(2, appended.baseOffset());
        assertEquals(3, partition.lastStableOffset());
        assertEquals(List.of(new Aborted(PRODUCER, 0, 2)), partition.abortedTransactions(0, 3));
    }
}
