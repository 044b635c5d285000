package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;

import dev.cairn.broker.io.StorageException;
import java.io.IOException;

/**
 * Ends a log's active segment and starts the next one at the log end offset: before an append that would overflow
 * it ({@code segment.bytes}, a full offset index, the relative offset range), when it is older than
 * {@code segment.ms}, on demand, and at the boundary a {@link RollPlan} fixed after a truncation.
 */
final class SegmentRoller {
    private final LogState state;

    SegmentRoller(LogState state) {
        this.state = state;
    }

    /** Whether a batch of {@code sizeBytes} ending at {@code lastOffset} overflows a non-empty active segment. */
    boolean shouldRoll(int sizeBytes, long lastOffset) {
        if (state.active.isEmpty()) {
            return false;
        }
        return state.active.sizeBytes() + (long) sizeBytes > state.config.segmentBytes()
                || state.active.isOffsetIndexFull()
                || lastOffset - state.active.baseOffset() > SegmentDescriptor.RELATIVE_OFFSET_MAX;
    }

    /** See {@link Log#maybeRoll(long)}. */
    boolean maybeRoll(long nowMs) {
        state.checkWriter();
        if (state.rollPlan.offset() != RollPlan.NONE) {
            return rollAsPlanned(state.logEndOffset);
        }
        long first = state.active.firstBatchTimestamp();
        if (state.active.isEmpty() || first == NO_TIMESTAMP || nowMs - first <= state.config.segmentMs()) {
            return false;
        }
        return roll();
    }

    /** See {@link Log#roll()}. */
    boolean roll() {
        state.checkWriter();
        state.checkHealthy();
        if (state.active.isEmpty()) {
            return false;
        }
        long base = state.logEndOffset;
        try {
            state.active.flush();
        } catch (IOException e) {
            // After a failed fsync the page cache state is unknown (fsyncgate): stop until reopened.
            StorageException error = new StorageException("fsync of " + state.active.logPath() + " failed", e);
            state.failure = error;
            throw error;
        }
        try {
            state.active.onBecomeInactive();
        } catch (IOException e) {
            // The segment stays active; its half-written index files are ignored and rebuilt on recovery.
            throw new StorageException("cannot roll " + state.active.logPath(), e);
        }
        Segment next;
        try {
            next = Segment.open(state.io, state.directory, base, state.config);
            next.recover();
            Invariant.check(next.isEmpty(), "new segment %d is not empty", base);
            state.io.fsyncDirectory(state.directory);
        } catch (IOException e) {
            try {
                state.io.delete(SegmentDescriptor.logFile(state.directory, base));
            } catch (IOException deleteFailure) {
                e.addSuppressed(deleteFailure);
            }
            throw new StorageException("cannot create segment " + base + " in " + state.directory, e);
        }
        state.segments.put(base, next);
        state.active = next;
        // The old segment was forced: everything below the new base offset is on disk.
        state.flushedOffset = base;
        return true;
    }

    /**
     * After a truncation, the active segment ends where it ended before (see {@link RollPlan}): no roll before the
     * planned offset, a roll at it. Returns whether it rolled.
     */
    boolean rollAsPlanned(long nextBaseOffset) {
        long planned = state.rollPlan.offset();
        if (nextBaseOffset < planned) {
            return false;
        }
        boolean rolled = nextBaseOffset == planned && roll();
        try {
            state.rollPlan.clear();
        } catch (IOException e) {
            throw new StorageException("cannot drop the roll plan of " + state.directory, e);
        }
        return rolled;
    }
}
