package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import dev.cairn.broker.partition.PlacementCodec;
import dev.cairn.protocol.record.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.junit.jupiter.api.Test;

/**
 * A batch whose placement lies beyond the replica's log end waits, in log order, for the log to reach it, and the
 * wait is bounded: it fails once the log has not grown for the stall limit.
 */
class PlacedBatchDataTest {
    private static final long STALL_MS = 300;
    /** The stall checks, run when a test says. */
    private final Deque<Runnable> checks = new ArrayDeque<>();
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final Partition partition = new Partition("orders", 0, Log.open(io, Path.of("/data/orders-0"),
            LogConfig.defaults()), new InMemoryOffsetStore(io));
    private final PlacedBatchData data = new PlacedBatchData(() -> partition, false, STALL_MS, checks::add);

    private static AppendAt placement(ByteBuffer batch) {
        RecordBatch header = RecordBatch.of(batch.duplicate());
        return new AppendAt(header.baseOffset(), 5_000L, header.sizeInBytes(), (int) header.checksum(),
                header.lastOffsetDelta(), -1, (short) -1, -1, -1, header.maxTimestamp());
    }

    private static LogEntryProto entry(long index, ByteBuffer batch) {
        StateMachineLogEntryProto logEntry = StateMachineLogEntryProto.newBuilder()
                .setLogData(UnsafeByteOperations.unsafeWrap(PlacementCodec.encode(placement(batch))))
                .setStateMachineEntry(StateMachineEntryProto.newBuilder()
                        .setStateMachineData(UnsafeByteOperations.unsafeWrap(batch.duplicate())))
                .build();
        return LogEntryProto.newBuilder().setIndex(index).setTerm(1).setStateMachineLogEntry(logEntry).build();
    }

    @Test
    void aWriteBeyondTheLogEndWaitsForTheGapToBeFilledThenLaterWritesFollowInOrder() throws Exception {
        ByteBuffer gap = TestBatches.batch(0, 3, 1_000L, 100, 1);
        ByteBuffer beyond = TestBatches.batch(3, 2, 1_000L, 100, 2);
        ByteBuffer next = TestBatches.batch(5, 1, 1_000L, 100, 3);

        CompletableFuture<?> waiting = data.write(entry(2, beyond), null);
        CompletableFuture<?> behind = data.write(entry(3, next), null);
        assertFalse(waiting.isDone());
        assertFalse(behind.isDone(), "a later write goes after the waiting one");

        partition.placements().fill(0, gap.duplicate());     // as the gap filler copies committed batches from the leader
        data.logGrew();

        behind.get(10, TimeUnit.SECONDS);
        assertEquals(6, partition.logEndOffset());
    }

    @Test
    void aWriteWhoseGapNeverClosesFailsAfterTheStallLimit() {
        ByteBuffer beyond = TestBatches.batch(3, 2, 1_000L, 100, 2);
        long start = System.nanoTime();
        CompletableFuture<?> waiting = data.write(entry(2, beyond), null);

        while (!waiting.isDone() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10)) {
            assertEquals(1, checks.size(), "one look at a time while it waits");
            checks.removeFirst().run();
        }

        ExecutionException failed = assertThrows(ExecutionException.class, () -> waiting.get(0, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, failed.getCause());
        assertFalse(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(STALL_MS), "not before the limit");
        assertEquals(0, partition.logEndOffset(), "nothing written");
        assertTrue(checks.isEmpty(), "no look after it failed");
    }

    @Test
    void theLooksAtAWaitingWriteEndWhenItGoesOn() throws Exception {
        CompletableFuture<?> waiting = data.write(entry(2, TestBatches.batch(3, 2, 1_000L, 100, 2)), null);
        partition.placements().fill(0, TestBatches.batch(0, 3, 1_000L, 100, 1));
        data.logGrew();
        waiting.get(10, TimeUnit.SECONDS);

        checks.removeFirst().run();
        assertTrue(checks.isEmpty(), "the look scheduled while it waited does not schedule another");
    }

    @Test
    void flushForcesTheSegmentOnlyWhenEveryAcknowledgedWriteIsFsynced() throws Exception {
        assertEquals(3, logEndAfterACrash(true), "log.flush.interval.messages=1: forced before Ratis counts it");
        assertEquals(0, logEndAfterACrash(false), "Kafka's default: on Kafka's schedule, not before the answer");
    }

    private static long logEndAfterACrash(boolean fsyncBeforeAck) throws Exception {
        SimulatedFileIo io = new SimulatedFileIo(7);
        Path dir = Path.of("/data/orders-0");
        Partition partition = new Partition("orders", 0, Log.open(io, dir, LogConfig.defaults()),
                new InMemoryOffsetStore(io));
        PlacedBatchData data = new PlacedBatchData(() -> partition, fsyncBeforeAck, STALL_MS, Runnable::run);
        data.write(entry(1, TestBatches.batch(0, 3, 1_000L, 100, 1)), null).get(10, TimeUnit.SECONDS);
        data.flush(1).get(10, TimeUnit.SECONDS);
        io.crash();
        try (Log reopened = Log.open(io, dir, LogConfig.defaults())) {
            return reopened.logEndOffset();
        }
    }
}
