package dev.cairn.broker.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.TestBatches;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacedBatchException;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.record.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replica whose log lost committed batches copies them from the leader ({@link GapFiller}): it pauses after every
 * copy that brings nothing (the leader not there yet) rather than spinning, keeps going while copies make the log
 * grow, and gives up only after {@link GapFiller#STALL_MAX_MS} without growth.
 */
class GapFillerTest {
    private static final Path DIR = Path.of("/data/orders-0");
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final FakePacing pacing = new FakePacing();

    /** A follower whose log ends at offset 3 (batches 0..2 committed) with a committed entry placed at 3..5. */
    private Partition followerWithAGap() {
        Partition partition = new Partition("orders", 0, Log.open(io, DIR, LogConfig.defaults()),
                new InMemoryOffsetStore(io));
        ByteBuffer first = TestBatches.batch(0, 3, 1_000L, 100, 1);
        partition.placements().place(placement(first), first.duplicate(), 1);
        partition.apply(1, 1, placement(first));
        assertEquals(3, partition.logEndOffset());
        return partition;
    }

    private static AppendAt placement(ByteBuffer batch) {
        RecordBatch header = RecordBatch.of(batch.duplicate());
        return new AppendAt(header.baseOffset(), 5_000L, header.sizeInBytes(), (int) header.checksum(),
                header.lastOffsetDelta(), -1, (short) -1, -1, -1, header.maxTimestamp());
    }

    @Test
    void copiesThatBringNothingArePacedAndTheGapClosesOnceTheLeaderHasTheBatches() {
        Partition follower = followerWithAGap();
        ByteBuffer missing = TestBatches.batch(3, 3, 1_000L, 100, 2);
        Deque<ByteBuffer> copies = new ArrayDeque<>(List.of(NOTHING, NOTHING, NOTHING, missing));
        List<Long> copiedFrom = new ArrayList<>();
        GapFiller filler = new GapFiller((from, max) -> {
            copiedFrom.add(from);
            return copies.removeFirst().duplicate();
        }, () -> { }, () -> false, pacing);

        Result result = filler.apply(follower, 2, 1, placement(missing), false);

        assertInstanceOf(Result.Appended.class, result);
        assertEquals(6, follower.highWatermark());
        assertEquals(List.of(3L, 3L, 3L, 3L), copiedFrom);
        assertEquals(List.of(GapFiller.BACKOFF_MS, GapFiller.BACKOFF_MS, GapFiller.BACKOFF_MS), pacing.pauses,
                "a pause after each copy that brought nothing, none after the one that filled the gap");
    }

    @Test
    void givesUpAfterTheStallLimitWithoutAByteCopied() {
        Partition follower = followerWithAGap();
        ByteBuffer missing = TestBatches.batch(3, 3, 1_000L, 100, 2);
        int[] copies = {0};
        GapFiller filler = new GapFiller((from, max) -> {
            copies[0]++;
            throw new IllegalStateException("no leader");
        }, () -> { }, () -> false, pacing);

        PlacedBatchException gap = assertThrows(PlacedBatchException.class,
                () -> filler.apply(follower, 2, 1, placement(missing), false));

        assertEquals(3, gap.missingFrom());
        assertEquals(GapFiller.STALL_MAX_MS / GapFiller.BACKOFF_MS, copies[0], "one copy a pause apart");
        assertTrue(pacing.nowMs >= GapFiller.STALL_MAX_MS);
    }

    @Test
    void stopsAtOnceWhenThePartitionWentOfflineMeanwhile() {
        Partition follower = followerWithAGap();
        ByteBuffer missing = TestBatches.batch(3, 3, 1_000L, 100, 2);
        int[] copies = {0};
        boolean[] offline = {false};
        GapFiller filler = new GapFiller((from, max) -> {
            copies[0]++;
            offline[0] = true;   // the Raft log failed on this replica while the copy ran
            return NOTHING.duplicate();
        }, () -> { }, () -> offline[0], pacing);

        PlacedBatchException gap = assertThrows(PlacedBatchException.class,
                () -> filler.apply(follower, 2, 1, placement(missing), false));

        assertEquals(3, gap.missingFrom());
        assertEquals(1, copies[0], "no copy after the partition went offline");
        assertEquals(List.of(GapFiller.BACKOFF_MS), pacing.pauses, "one pause, not the stall limit");
    }

    @Test
    void copiesThatGrowTheLogRestartTheStallClock() {
        Partition follower = followerWithAGap();
        ByteBuffer head = TestBatches.batch(3, 2, 1_000L, 100, 2);   // the leader holds 3..5 as two batches
        ByteBuffer tail = TestBatches.batch(5, 1, 1_000L, 100, 3);
        long emptyCopies = GapFiller.STALL_MAX_MS / GapFiller.BACKOFF_MS - 1;
        Deque<ByteBuffer> copies = new ArrayDeque<>();
        for (long i = 0; i < emptyCopies; i++) {
            copies.add(NOTHING);
        }
        copies.add(head);
        for (long i = 0; i < emptyCopies; i++) {
            copies.add(NOTHING);
        }
        copies.add(tail);
        int[] filled = {0};
        GapFiller filler = new GapFiller((from, max) -> copies.removeFirst().duplicate(), () -> filled[0]++,
                () -> false, pacing);
        AppendAt wholeRange = new AppendAt(3, 5_000L, head.remaining(), 0, 2, -1, (short) -1, -1, -1, 1_000L);

        filler.apply(follower, 2, 1, wholeRange, false);

        assertTrue(pacing.nowMs > GapFiller.STALL_MAX_MS, "longer than the limit in all, but never that long idle");
        assertEquals(6, follower.logEndOffset());
        assertEquals(2 * emptyCopies + 2, filled[0], "writers waiting for the gap are told after every copy");
    }

    /** A clock that moves only when the filler pauses. */
    private static final class FakePacing implements GapFiller.Pacing {
        long nowMs = 1_000_000;
        final List<Long> pauses = new ArrayList<>();

        @Override
        public long nowMs() {
            return nowMs;
        }

        @Override
        public void pause(long ms) {
            pauses.add(ms);
            nowMs += ms;
        }
    }
}
