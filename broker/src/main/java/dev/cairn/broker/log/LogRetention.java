package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;

import dev.cairn.broker.io.StorageException;
import java.io.IOException;
import java.util.Map;

/**
 * Deletes a log's oldest segments and moves its start offset up: retention by time and size
 * ({@code retention.ms}, {@code retention.bytes}) and DeleteRecords. The start offset is published before a segment
 * leaves the map, and the files of deleted segments are closed on the next retention pass.
 */
final class LogRetention {
    private final LogState state;

    LogRetention(LogState state) {
        this.state = state;
    }

    /** See {@link Log#deleteExpired(long, long)}. */
    int deleteExpired(long nowMs, long upToOffset) {
        state.checkWriter();
        state.checkHealthy();
        state.closeRetired();
        int deleted = 0;
        try {
            if (state.config.retentionMs() != LogConfig.RETENTION_UNLIMITED) {
                while (state.segments.size() > 1 && secondSegmentBase() <= upToOffset) {
                    long newest = state.segments.firstEntry().getValue().maxTimestamp();
                    if (newest == NO_TIMESTAMP || nowMs - newest <= state.config.retentionMs()) {
                        break;
                    }
                    deleteOldest();
                    deleted++;
                }
            }
            if (state.config.retentionBytes() != LogConfig.RETENTION_UNLIMITED) {
                long total = state.sizeBytes();
                while (state.segments.size() > 1 && secondSegmentBase() <= upToOffset
                        && total - state.segments.firstEntry().getValue().sizeBytes()
                                >= state.config.retentionBytes()) {
                    total -= deleteOldest();
                    deleted++;
                }
            }
            if (deleted > 0) {
                state.io.fsyncDirectory(state.directory);
            }
        } catch (IOException e) {
            throw new StorageException("retention in " + state.directory + " failed", e);
        }
        return deleted;
    }

    /** Where the oldest segment ends: the base offset of the one after it (callers check there is one). */
    private long secondSegmentBase() {
        return state.segments.higherKey(state.segments.firstKey());
    }

    /** See {@link Log#deleteRecordsBefore(long)}. */
    int deleteRecordsBefore(long offset) {
        state.checkWriter();
        state.checkHealthy();
        Invariant.check(offset <= state.logEndOffset, "log start %d beyond the log end %d", offset, state.logEndOffset);
        if (offset <= state.logStartOffset) {
            return 0;
        }
        int deleted = 0;
        try {
            while (state.segments.size() > 1 && state.segments.higherKey(state.segments.firstKey()) <= offset) {
                deleteOldest();
                deleted++;
            }
            state.logStartOffset = offset;
            if (deleted > 0) {
                state.io.fsyncDirectory(state.directory);
            }
        } catch (IOException e) {
            throw new StorageException("deleting records below " + offset + " in " + state.directory + " failed", e);
        }
        return deleted;
    }

    private int deleteOldest() throws IOException {
        Map.Entry<Long, Segment> oldest = state.segments.firstEntry();
        Segment segment = oldest.getValue();
        // Publish the new start first, so a concurrent reader answers out-of-range rather than missing a file. A
        // start moved into the next segment by DeleteRecords stays where it is.
        state.logStartOffset = Math.max(state.logStartOffset, state.segments.higherKey(oldest.getKey()));
        state.segments.remove(oldest.getKey());
        state.retired.add(segment);
        segment.deleteFiles();
        return segment.sizeBytes();
    }
}
