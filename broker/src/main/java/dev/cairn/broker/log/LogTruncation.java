package dev.cairn.broker.log;

import dev.cairn.broker.io.StorageException;
import java.io.IOException;

/**
 * Cuts a log back: removes the batches from an offset on (a Raft replay or snapshot rewinding the log, or a tail Raft
 * never committed), or deletes every segment and restarts the log empty at an offset (snapshot installation). The
 * recovery point is lowered before anything is removed, and a failure takes the log offline.
 */
final class LogTruncation {
    private final LogState state;

    LogTruncation(LogState state) {
        this.state = state;
    }

    /**
     * See {@link Log#truncateTo(long)} ({@code planRoll}: the same batches come back) and
     * {@link Log#truncateUncommittedTo(long)}.
     */
    long truncateTo(long offset, boolean planRoll) {
        state.checkWriter();
        state.checkHealthy();
        if (offset >= state.logEndOffset) {
            return state.logEndOffset;
        }
        if (offset <= state.logStartOffset) {
            truncateFullyAndStartAt(offset);
            return offset;
        }
        Segment target = state.segments.floorEntry(offset).getValue();
        try {
            // Lower the recovery point first, so a crash midway is never mistaken for lost flushed data.
            long lowered = Math.min(state.flushedOffset, target.baseOffset());
            state.checkpoint.write(lowered, false);
            state.flushedOffset = lowered;
            Long segmentEnd = state.segments.higherKey(target.baseOffset());
            if (segmentEnd != null && planRoll) {
                state.rollPlan.set(segmentEnd);
            }
            while (state.segments.lastKey() > target.baseOffset()) {
                Segment newest = state.segments.pollLastEntry().getValue();
                state.retired.add(newest);
                newest.deleteFiles();
            }
            state.io.fsyncDirectory(state.directory);
            state.active = target;
            long end = target.truncateTo(offset);
            state.logEndOffset = end;
            state.checkpoint.write(end, false);
            state.flushedOffset = end;
            return end;
        } catch (IOException e) {
            StorageException error = new StorageException("truncation of " + state.directory + " to " + offset
                    + " failed", e);
            state.failure = error;
            throw error;
        }
    }

    /** See {@link Log#truncateFullyAndStartAt(long)}. */
    void truncateFullyAndStartAt(long startOffset) {
        state.checkWriter();
        state.checkHealthy();
        Invariant.check(startOffset >= 0, "negative start offset %d", startOffset);
        try {
            state.checkpoint.writeRestartPending(startOffset);
            state.rollPlan.clear();
            while (!state.segments.isEmpty()) {
                Segment newest = state.segments.pollLastEntry().getValue();
                state.retired.add(newest);
                newest.deleteFiles();
            }
            state.io.fsyncDirectory(state.directory);
            Segment fresh = Segment.open(state.io, state.directory, startOffset, state.config);
            fresh.recover();
            Invariant.check(fresh.isEmpty(), "restarted segment %d is not empty", startOffset);
            state.io.fsyncDirectory(state.directory);
            state.checkpoint.write(startOffset, false);
            state.segments.put(startOffset, fresh);
            state.active = fresh;
            state.logStartOffset = startOffset;
            state.logEndOffset = startOffset;
            state.flushedOffset = startOffset;
        } catch (IOException e) {
            StorageException error = new StorageException("restart of " + state.directory + " at " + startOffset
                    + " failed", e);
            state.failure = error;
            throw error;
        }
    }
}
