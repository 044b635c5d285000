package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The leader's placements: dense offsets ahead of the commit, idempotence against placed batches, log order. */
class AppendPlannerTest {

    private static Command.Append append(ByteBuffer batch) {
        return new Command.Append(batch, 5_000L);
    }

    @Test
    void placementsFollowEachOtherAheadOfTheCommittedState() {
        AppendPlanner planner = new AppendPlanner();
        assertFalse(planner.isCurrent(3));
        planner.reset(3, 100, new ProducerStateTable());
        assertTrue(planner.isCurrent(3));
        AppendAt first = assertInstanceOf(AppendAt.class,
                planner.plan(append(PartitionTest.clientBatch(4, -1, (short) -1, -1))));
        AppendAt second = assertInstanceOf(AppendAt.class,
                planner.plan(append(PartitionTest.clientBatch(2, -1, (short) -1, -1))));
        assertEquals(100, first.baseOffset());
        assertEquals(103, first.lastOffset());
        assertEquals(104, second.baseOffset());
        assertEquals(5_000L, second.appendTimeMs());
        assertTrue(planner.onAppending(first));
        assertFalse(planner.onAppending(first), "the same placement again is out of order");
        assertTrue(planner.onAppending(second));
        assertFalse(planner.isCurrent(4), "a new term rebuilds the view");
        planner.invalidate();
        assertFalse(planner.isCurrent(3));
    }

    @Test
    void aRetryOfAPlacedBatchIsADuplicateAndASequenceGapIsRefused() {
        AppendPlanner planner = new AppendPlanner();
        planner.reset(1, 0, new ProducerStateTable());
        ByteBuffer batch = PartitionTest.clientBatch(3, 42, (short) 0, 0);
        AppendAt placed = assertInstanceOf(AppendAt.class, planner.plan(append(batch.duplicate())));
        assertEquals(42, placed.producerId());
        assertEquals(2, placed.lastSequence());
        Command.AppendDuplicate retry = assertInstanceOf(Command.AppendDuplicate.class,
                planner.plan(append(batch.duplicate())));
        assertEquals(0, retry.baseOffset());
        assertEquals(2, retry.lastOffset());
        Command.AppendRefused gap = assertInstanceOf(Command.AppendRefused.class,
                planner.plan(append(PartitionTest.clientBatch(1, 42, (short) 0, 7))));
        assertEquals(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, gap.error());
        AppendAt next = assertInstanceOf(AppendAt.class,
                planner.plan(append(PartitionTest.clientBatch(1, 42, (short) 0, 3))));
        assertEquals(3, next.baseOffset(), "refusals and duplicates take no offsets");
    }

    @Test
    void aRebuiltViewReplaysThePlacementsStillInTheRaftLog() {
        AppendPlanner planner = new AppendPlanner();
        planner.reset(2, 10, new ProducerStateTable());
        planner.replay(new AppendAt(10, 1L, 100, 0, 4, 42, (short) 0, 0, 4, 1L));
        AppendAt next = assertInstanceOf(AppendAt.class,
                planner.plan(append(PartitionTest.clientBatch(1, 42, (short) 0, 5))));
        assertEquals(15, next.baseOffset());
        assertTrue(planner.onAppending(next), "replayed placements are in the log already");
        assertInstanceOf(Command.AppendDuplicate.class,
                planner.plan(append(PartitionTest.clientBatch(5, 42, (short) 0, 0))));
    }

    @Test
    void placementsSurviveTheCodec() {
        AppendAt at = new AppendAt(1L << 40, 77L, 1234, 0xCAFEBABE, 9, 42, (short) 3, 5, 14, 99L);
        assertEquals(at, CommandCodec.decodeCommand(PlacementCodec.encode(at)));
        Command.AppendDuplicate duplicate = new Command.AppendDuplicate(5, 9);
        assertEquals(duplicate, CommandCodec.decodeCommand(PlacementCodec.encode(duplicate)));
        Command.AppendRefused refused = new Command.AppendRefused(ErrorCode.INVALID_PRODUCER_EPOCH, "fenced");
        assertEquals(refused, CommandCodec.decodeCommand(PlacementCodec.encode(refused)));
    }
}
