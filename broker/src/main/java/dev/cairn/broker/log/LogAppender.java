package dev.cairn.broker.log;

import dev.cairn.broker.io.StorageException;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Appends record batches at a log's end: checks each batch against the log end offset, has the {@link SegmentRoller}
 * roll first when the active segment cannot take it, writes it, publishes the new log end offset, and has the
 * {@link LogFlusher} flush when {@code flush.messages} is reached. A failed write leaves the log as it was, unless
 * the active segment's file cannot be restored: then the log goes offline.
 */
final class LogAppender {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final LogState state;
    private final SegmentRoller roller;
    private final LogFlusher flusher;
    private final RecordBatch appendBatch = new RecordBatch();

    LogAppender(LogState state, SegmentRoller roller, LogFlusher flusher) {
        this.state = state;
        this.roller = roller;
        this.flusher = flusher;
    }

    /** See {@link Log#append(ByteBuffer)}. */
    long append(ByteBuffer batch) {
        RecordBatch record = appendBatch.wrap(batch, batch.position());
        return append(batch, record.baseOffset(), batch, EMPTY);
    }

    /** See {@link Log#appendAsNext(ByteBuffer, int)}. */
    long appendAsNext(ByteBuffer batch, int partitionLeaderEpoch) {
        int start = batch.position();
        ByteBuffer header = ByteBuffer.allocate(RecordBatchDescriptor.HEADER_BYTES);
        header.put(batch.duplicate().limit(start + RecordBatchDescriptor.HEADER_BYTES)).flip();
        header.putLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET, state.logEndOffset);
        header.putInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        ByteBuffer records = batch.duplicate().position(start + RecordBatchDescriptor.HEADER_BYTES);
        return append(batch, state.logEndOffset, header, records);
    }

    /** Appends {@code batch} (validated as is, with base offset {@code baseOffset}) written as head then rest. */
    private long append(ByteBuffer batch, long baseOffset, ByteBuffer head, ByteBuffer rest) {
        state.checkWriter();
        state.checkHealthy();
        RecordBatch record = appendBatch.wrap(batch, batch.position());
        int sizeBytes = record.sizeInBytes();
        long lastOffset = baseOffset + record.lastOffsetDelta();
        Invariant.check(sizeBytes == batch.remaining(), "append of %d bytes holds a batch of %d bytes",
                batch.remaining(), sizeBytes);
        Invariant.check(record.magic() == RecordBatchDescriptor.MAGIC_V2, "append of batch with magic %d",
                record.magic());
        Invariant.check(baseOffset == state.logEndOffset, "batch base offset %d != log end offset %d", baseOffset,
                state.logEndOffset);
        Invariant.check(record.lastOffsetDelta() >= 0, "negative last offset delta %d", record.lastOffsetDelta());
        assert record.isChecksumValid() : "append of a batch with a bad CRC at offset " + baseOffset;
        if (state.rollPlan.offset() != RollPlan.NONE) {
            roller.rollAsPlanned(baseOffset);
        } else if (roller.shouldRoll(sizeBytes, lastOffset)) {
            roller.roll();
        }
        try {
            state.active.append(head, rest, baseOffset, lastOffset, record.maxTimestamp());
        } catch (IOException e) {
            StorageException error = new StorageException("append of offsets " + baseOffset + ".." + lastOffset
                    + " to " + state.active.logPath() + " failed", e);
            if (!isActiveFileConsistent()) {
                state.failure = error;
            }
            throw error;
        }
        state.logEndOffset = lastOffset + 1;
        if (state.logEndOffset - state.flushedOffset >= state.config.flushIntervalMessages()) {
            flusher.flush();
        }
        return state.logEndOffset;
    }

    private boolean isActiveFileConsistent() {
        try {
            return state.active.logFile().size() == state.active.sizeBytes();
        } catch (IOException e) {
            return false;
        }
    }
}
