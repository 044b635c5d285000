package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.protocol.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The write-once path in the partition core (docs/write-path.md): batches placed ahead of the commit are written as
 * their Raft entries are appended, invisible until the entries commit, cut when a new leader replaces them, and
 * found again in the log (not re-appended) when a restart replays the entries.
 */
class PartitionWriteOnceTest {
    private static final Path DIR = Path.of("/data/orders-0");
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final LogConfig config = LogConfig.defaults().withSegmentBytes(4096);
    private final InMemoryOffsetStore offsets = new InMemoryOffsetStore(io);

    private Partition open() {
        return new Partition("orders", 0, Log.open(io, DIR, config), offsets);
    }

    private static ByteBuffer batch(int records) {
        return PartitionTest.clientBatch(records, -1, (short) -1, -1).duplicate();
    }

    /** Places {@code batch} at {@code baseOffset} as a leader would, and writes it as Raft's append would. */
    private static AppendAt place(Partition partition, long baseOffset, ByteBuffer batch, int term) {
        AppendAt at = (AppendAt) AppendPlanner.decide(new Command.Append(batch.duplicate(), 5_000L),
                new ProducerStateTable(), baseOffset, new RecordBatch());
        partition.placements().place(at, batch.duplicate(), term);
        return at;
    }

    @Test
    void placedBatchesAreInvisibleUntilTheirEntriesCommit() throws IOException {
        Partition partition = open();
        AppendAt first = place(partition, 0, batch(3), 2);
        AppendAt second = place(partition, 3, batch(2), 2);
        assertEquals(0, partition.highWatermark());
        assertTrue(partition.read(0, Integer.MAX_VALUE).isEmpty(), "nothing is committed yet");
        assertEquals(first.sizeBytes(), partition.placements().readPlaced(first).remaining(), "a follower can be sent it");

        Result.Appended appended = assertInstanceOf(Result.Appended.class, partition.apply(1, 2, first));
        assertEquals(0, appended.baseOffset());
        assertEquals(3, partition.highWatermark());
        LogSlice visible = partition.read(0, Integer.MAX_VALUE);
        assertEquals(3, visible.nextOffset(), "readers stop at the high watermark");
        partition.apply(2, 2, second);
        assertEquals(5, partition.highWatermark());
        assertEquals(2, RecordBatch.of(partition.placements().readPlaced(second)).partitionLeaderEpoch(), "the entry's term");
    }

    @Test
    void aNewLeadersPlacementCutsTheUncommittedTail() throws IOException {
        Partition partition = open();
        partition.apply(1, 2, place(partition, 0, batch(3), 2));
        place(partition, 3, batch(4), 2);              // never commits: a new leader replaces it
        place(partition, 7, batch(1), 2);
        AppendAt replacement = place(partition, 3, batch(2), 3);
        partition.apply(2, 3, replacement);
        assertEquals(5, partition.highWatermark());
        assertEquals(5, partition.read(3, Integer.MAX_VALUE).nextOffset());
        assertEquals(3, RecordBatch.of(partition.placements().readPlaced(replacement)).partitionLeaderEpoch());
        assertThrows(PlacedBatchException.class, () -> place(partition, 9, batch(1), 3),
                "a placement beyond the log end would leave a gap");
    }

    @Test
    void aRestartFindsThePlacedBatchesInTheLogAndChecksThem() throws IOException {
        Partition partition = open();
        AppendAt[] entries = new AppendAt[12];
        PartitionSnapshot snapshot = null;
        long next = 0;
        for (int i = 0; i < entries.length; i++) {
            entries[i] = place(partition, next, batch(1 + i % 4), 1);
            next = entries[i].lastOffset() + 1;
            partition.apply(i + 1, 1, entries[i]);
            if (i == 4) {
                snapshot = partition.snapshot();
            }
        }
        AppendAt uncommitted = place(partition, next, batch(2), 1);   // written, its entry never logged
        long end = partition.highWatermark();
        partition.close();

        Partition restarted = open();
        restarted.restore(5, snapshot);
        assertEquals(snapshot.logEndOffset(), restarted.highWatermark());
        for (int i = 5; i < entries.length; i++) {
            restarted.apply(i + 1, 1, entries[i], true);
        }
        assertEquals(end, restarted.highWatermark());
        // The next leader places after the committed end: the stale batch there is cut, not read.
        AppendAt after = place(restarted, end, batch(1), 2);
        restarted.apply(entries.length + 1, 2, after);
        assertEquals(end + 1, restarted.highWatermark());
        assertTrue(uncommitted.lastOffset() >= end);
        restarted.close();
    }

    @Test
    void aCommittedBatchMissingFromTheLogIsAStorageFailure() {
        Partition partition = open();
        AppendAt first = place(partition, 0, batch(3), 1);
        AppendAt second = place(partition, 3, batch(3), 1);
        partition.apply(1, 1, first);
        PartitionSnapshot snapshot = partition.snapshot();
        partition.close();
        try (Log log = Log.open(io, DIR, config)) {
            log.truncateTo(3);   // as a crash that lost unflushed bytes would leave it
        }
        Partition restarted = open();
        restarted.restore(1, snapshot);
        assertThrows(PlacedBatchException.class, () -> restarted.apply(2, 1, second, true));
    }

    @Test
    void aReplayedEntryFindingAnotherBatchAtItsOffsetIsAStorageFailure() {
        Partition partition = open();
        partition.apply(1, 1, place(partition, 0, batch(3), 1));
        PartitionSnapshot snapshot = partition.snapshot();
        AppendAt second = place(partition, 3, batch(2), 1);
        partition.apply(2, 1, second);
        partition.close();
        AppendAt notThatBatch = new AppendAt(second.baseOffset(), second.appendTimeMs(), second.sizeBytes(),
                second.crc() ^ 1, second.lastOffsetDelta(), second.producerId(), second.producerEpoch(),
                second.firstSequence(), second.lastSequence(), second.maxTimestamp());

        Partition restarted = open();
        restarted.restore(1, snapshot);
        PlacedBatchException mismatch = assertThrows(PlacedBatchException.class,
                () -> restarted.apply(2, 1, notThatBatch, true));
        assertEquals(3, mismatch.missingFrom(), "copied again from the leader from there");
        restarted.close();
        Partition again = open();
        again.restore(1, snapshot);
        again.apply(2, 1, second, true);
        assertEquals(5, again.highWatermark(), "the header read back matches the entry that placed it");
    }

    @Test
    void aSnapshotCoversTheCommittedBytesOnly() {
        Partition partition = open();
        AppendAt first = place(partition, 0, batch(3), 1);
        place(partition, 3, batch(3), 1);
        partition.apply(1, 1, first);
        PartitionSnapshot snapshot = partition.snapshot();
        assertEquals(3, snapshot.logEndOffset());
        long bytes = snapshot.segments().stream().mapToLong(SegmentExtent::sizeBytes).sum();
        assertEquals(first.sizeBytes(), bytes);
    }
}
