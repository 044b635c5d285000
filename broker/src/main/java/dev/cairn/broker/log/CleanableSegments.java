package dev.cairn.broker.log;

import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.SegmentScanner.ScanResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A log's side of compaction, for the {@link LogCleaner}: which inactive segments it may rewrite, their whole
 * batches, and the crash-safe replacement of a segment by its compacted copy. Writer thread.
 */
final class CleanableSegments {
    private final LogState state;

    CleanableSegments(LogState state) {
        this.state = state;
    }

    /** The file system the log's files live on (compaction writes its copies there). */
    FileIo fileIo() {
        return state.io;
    }

    /** An inactive segment: its base offset, the next segment's base, and its size. */
    record InactiveSegment(long baseOffset, long endOffset, int sizeBytes) {
    }

    /** The inactive segments that end at or below {@code offset}, oldest first. Writer thread. */
    List<InactiveSegment> inactiveSegmentsEndingBy(long offset) {
        List<InactiveSegment> result = new ArrayList<>();
        for (Map.Entry<Long, Segment> entry : state.segments.entrySet()) {
            Segment segment = entry.getValue();
            Long next = state.segments.higherKey(entry.getKey());
            if (segment == state.active || next == null || next > offset) {
                break;
            }
            result.add(new InactiveSegment(entry.getKey(), next, segment.sizeBytes()));
        }
        return result;
    }

    /**
     * Whole batches of the segment based at {@code baseOffset} from {@code offset}, below the log start offset too
     * (compaction rewrites whole files). Writer thread.
     */
    ByteBuffer readSegment(long baseOffset, long offset, int maxBytes) {
        Segment segment = state.segments.get(baseOffset);
        Invariant.check(segment != null, "no segment at %d", baseOffset);
        try {
            return segment.read(offset, maxBytes, segment.nextOffset()).readBytes();
        } catch (IOException e) {
            throw new StorageException("read of offset " + offset + " from " + segment.logPath() + " failed", e);
        }
    }

    /**
     * Replaces the inactive segment based at {@code baseOffset} with {@code cleaned}, a complete and fsynced file
     * of the same offsets (compaction). Crash-safe: the segment's index files go first (a missing index is rebuilt
     * from the log on open), then the copy is renamed over the {@code .log} file, atomically; a copy left behind by
     * a crash before that is deleted on open. Readers holding the old segment finish on its open files.
     */
    void replaceWithCleaned(long baseOffset, Path cleaned) {
        state.checkWriter();
        state.checkHealthy();
        Segment old = state.segments.get(baseOffset);
        Long next = state.segments.higherKey(baseOffset);
        Invariant.check(old != null && old != state.active && next != null, "segment %d is not inactive", baseOffset);
        try {
            state.io.delete(SegmentDescriptor.offsetIndexFile(state.directory, baseOffset));
            state.io.delete(SegmentDescriptor.timeIndexFile(state.directory, baseOffset));
            state.io.fsyncDirectory(state.directory);
            state.io.atomicMove(cleaned, SegmentDescriptor.logFile(state.directory, baseOffset));
            state.io.fsyncDirectory(state.directory);
            Segment fresh = Segment.open(state.io, state.directory, baseOffset, state.config);
            ScanResult result = fresh.recover();
            if (!result.isComplete() || result.nextOffset() != next) {
                fresh.close();
                throw new LogCorruptionException(fresh.logPath(), result.validBytes(), "compacted segment ends at "
                        + result.nextOffset() + " (" + result.problem() + "), the next segment starts at " + next);
            }
            fresh.writeIndexesAndSeal();
            state.segments.put(baseOffset, fresh);
            state.retired.add(old);
        } catch (IOException | LogCorruptionException e) {
            StorageException error = new StorageException("replacing segment " + baseOffset + " of " + state.directory
                    + " with its compacted copy failed", e);
            state.failure = error;
            throw error;
        }
    }
}
