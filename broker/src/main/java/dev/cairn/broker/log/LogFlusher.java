package dev.cairn.broker.log;

import dev.cairn.broker.io.StorageException;
import java.io.IOException;

/**
 * Forces a log's active segment and records the recovery point, as the flush policy in the package documentation
 * says: on demand, after {@code flush.ms} of unflushed data, and when an append reaches {@code flush.messages}. A
 * failed fsync takes the log offline.
 */
final class LogFlusher {
    private static final long UNSET_MS = Long.MIN_VALUE;

    private final LogState state;
    private long unflushedSinceMs = UNSET_MS;

    LogFlusher(LogState state) {
        this.state = state;
    }

    /** See {@link Log#flush()}. */
    void flush() {
        state.checkWriter();
        state.checkHealthy();
        long end = state.logEndOffset;
        if (state.flushedOffset == end) {
            return;
        }
        try {
            state.active.flush();
            state.checkpoint.write(end, false);
        } catch (IOException e) {
            // After a failed fsync the page cache state is unknown (fsyncgate): stop until reopened.
            StorageException error = new StorageException("fsync of " + state.active.logPath() + " failed", e);
            state.failure = error;
            throw error;
        }
        state.flushedOffset = end;
    }

    /** See {@link Log#maybeFlush(long)}. */
    boolean maybeFlush(long nowMs) {
        state.checkWriter();
        if (state.logEndOffset == state.flushedOffset) {
            unflushedSinceMs = UNSET_MS;
            return false;
        }
        if (unflushedSinceMs == UNSET_MS) {
            unflushedSinceMs = nowMs;
        }
        if (nowMs - unflushedSinceMs < state.config.flushIntervalMs()) {
            return false;
        }
        flush();
        unflushedSinceMs = UNSET_MS;
        return true;
    }
}
