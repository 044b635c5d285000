package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;

import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.SegmentScanner.ScanResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads a log's segments without changing them: fetch reads bounded by the published offsets (any thread), lookups by
 * timestamp, the extents a snapshot ships, and the deep verification scan.
 */
final class LogReader {
    private final LogState state;

    LogReader(LogState state) {
        this.state = state;
    }

    /** See {@link Log#read(long, int, long)}. */
    LogSlice read(long fetchOffset, int maxBytes, long upToOffset) {
        long end = state.logEndOffset;
        long start = state.logStartOffset;
        if (fetchOffset < start || fetchOffset > end) {
            throw new OffsetOutOfRangeException(fetchOffset, start, end);
        }
        long limit = Math.min(upToOffset, end);
        if (fetchOffset >= limit) {
            return LogSlice.empty(fetchOffset);
        }
        Map.Entry<Long, Segment> entry = state.segments.floorEntry(fetchOffset);
        if (entry == null) {
            throw new OffsetOutOfRangeException(fetchOffset, state.logStartOffset, state.logEndOffset);
        }
        Segment segment = entry.getValue();
        if (fetchOffset >= segment.nextOffset()) {
            // The offset sits exactly at a segment boundary: continue in the next segment.
            Map.Entry<Long, Segment> next = state.segments.higherEntry(entry.getKey());
            if (next == null) {
                return LogSlice.empty(fetchOffset);
            }
            segment = next.getValue();
        }
        try {
            return segment.read(fetchOffset, maxBytes, limit);
        } catch (IOException e) {
            throw new StorageException("read of offset " + fetchOffset + " from " + segment.logPath() + " failed", e);
        }
    }

    /** See {@link Log#maxTimestamp()}. */
    long maxTimestamp() {
        long max = NO_TIMESTAMP;
        for (Segment segment : state.segments.values()) {
            max = Math.max(max, segment.maxTimestamp());
        }
        return max;
    }

    /** See {@link Log#offsetForTimestamp(long)}. */
    OptionalLong offsetForTimestamp(long timestampMs) {
        for (Segment segment : state.segments.values()) {
            if (segment.maxTimestamp() != NO_TIMESTAMP && segment.maxTimestamp() >= timestampMs) {
                try {
                    long offset = segment.offsetForTimestamp(timestampMs);
                    if (offset >= 0) {
                        return OptionalLong.of(offset);
                    }
                } catch (IOException e) {
                    throw new StorageException("timestamp lookup in " + segment.logPath() + " failed", e);
                }
            }
        }
        return OptionalLong.empty();
    }

    /** See {@link Log#verify()}. */
    void verify() {
        state.checkWriter();
        for (Segment segment : state.segments.values()) {
            try {
                Segment copy = Segment.open(state.io, state.directory, segment.baseOffset(), state.config);
                ScanResult result;
                try {
                    result = copy.recover();
                } finally {
                    copy.close();
                }
                if (!result.isComplete()) {
                    throw new LogCorruptionException(segment.logPath(), result.validBytes(), result.problem());
                }
                if (result.validBytes() != segment.sizeBytes()) {
                    throw new LogCorruptionException(segment.logPath(), result.validBytes(),
                            "scan found " + result.validBytes() + " bytes, log holds " + segment.sizeBytes());
                }
            } catch (IOException e) {
                throw new StorageException("verification of " + segment.logPath() + " failed", e);
            }
        }
    }

    /** See {@link Log#segmentExtents(long)}. */
    List<SegmentExtent> segmentExtents(long upToOffset) {
        List<SegmentExtent> extents = new ArrayList<>(state.segments.size());
        for (Segment segment : state.segments.values()) {
            if (segment.baseOffset() >= upToOffset && !extents.isEmpty()) {
                break;
            }
            try {
                extents.add(new SegmentExtent(segment.baseOffset(), segment.positionOf(upToOffset)));
            } catch (IOException e) {
                throw new StorageException("finding offset " + upToOffset + " in " + segment.logPath() + " failed", e);
            }
        }
        return extents;
    }
}
