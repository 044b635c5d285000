package dev.cairn.broker.log;

import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.SegmentScanner.ScanResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;

/**
 * Opens a log's segments when the log is opened: drops files that belong to no segment (and a compaction's unfinished
 * copy), finishes an interrupted restart, loads inactive segments from their index files (or rescans them strictly),
 * and recovers the active segment against the recovery checkpoint: a torn tail beyond the recovery point is cut
 * away, damage below it raises {@link LogCorruptionException}.
 */
final class LogLoader {
    private final LogState state;

    LogLoader(LogState state) {
        this.state = state;
    }

    /**
     * Loads the segments found in the directory into the state and recovers them as {@link Log#open} describes, then
     * publishes the offsets, forces the active segment and records the recovery point.
     */
    void load() throws IOException {
        TreeSet<Long> baseOffsets = new TreeSet<>();
        List<Path> files = state.io.list(state.directory);
        for (Path file : files) {
            long base = SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.LOG_SUFFIX);
            if (base >= 0) {
                baseOffsets.add(base);
            }
        }
        for (Path file : files) {
            if (SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.CLEANED_SUFFIX) >= 0) {
                // A compaction stopped before its copy replaced the segment: the segment is intact, the copy goes.
                state.io.delete(file);
                continue;
            }
            long base = Math.max(SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.OFFSET_INDEX_SUFFIX),
                    SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.TIME_INDEX_SUFFIX));
            if (base >= 0 && !baseOffsets.contains(base)) {
                state.io.delete(file);
            }
        }
        RecoveryCheckpoint.State checkpointState = state.checkpoint.read();
        long recoveryOffset = checkpointState == null ? RecoveryCheckpoint.UNKNOWN : checkpointState.recoveryOffset();
        if (checkpointState != null && checkpointState.restartPending()) {
            // A restart (truncateFullyAndStartAt) was interrupted: finish it.
            deleteAllSegmentFiles(files);
            baseOffsets.clear();
        }
        if (baseOffsets.isEmpty()) {
            long start = Math.max(0, recoveryOffset);
            Segment segment = Segment.open(state.io, state.directory, start, state.config);
            segment.recover();
            state.io.fsyncDirectory(state.directory);
            state.segments.put(start, segment);
        }
        try {
            Long previous = null;
            for (long base : baseOffsets) {
                if (previous != null) {
                    loadInactive(previous, base);
                }
                previous = base;
            }
            if (previous != null) {
                loadActive(previous, checkpointState);
            }
        } catch (IOException | StorageException e) {
            for (Segment segment : state.segments.values()) {
                segment.close();
            }
            throw e;
        }
        state.active = state.segments.lastEntry().getValue();
        state.logStartOffset = state.segments.firstKey();
        state.logEndOffset = state.active.nextOffset();
        state.active.flush();
        state.checkpoint.write(state.logEndOffset, false);
        state.flushedOffset = state.logEndOffset;
        state.rollPlan.load(state.logEndOffset);
    }

    private void deleteAllSegmentFiles(List<Path> files) throws IOException {
        for (int i = files.size() - 1; i >= 0; i--) {
            Path file = files.get(i);
            if (SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.LOG_SUFFIX) >= 0
                    || SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.OFFSET_INDEX_SUFFIX) >= 0
                    || SegmentDescriptor.baseOffsetOf(file, SegmentDescriptor.TIME_INDEX_SUFFIX) >= 0) {
                state.io.delete(file);
            }
        }
        state.io.fsyncDirectory(state.directory);
    }

    private void loadInactive(long base, long nextBase) throws IOException {
        Segment segment = Segment.open(state.io, state.directory, base, state.config);
        state.segments.put(base, segment);
        if (segment.loadIndexes(nextBase, true)) {
            return;
        }
        ScanResult result = segment.recover();
        if (!result.isComplete()) {
            throw new LogCorruptionException(segment.logPath(), result.validBytes(),
                    result.problem() + " (inactive segment; offsets up to " + nextBase + " had been flushed)");
        }
        if (result.nextOffset() != nextBase) {
            throw new LogCorruptionException(segment.logPath(), result.validBytes(), "segment ends at offset "
                    + result.nextOffset() + " but the next segment starts at " + nextBase);
        }
        segment.writeIndexesAndSeal();
    }

    private void loadActive(long base, RecoveryCheckpoint.State checkpointState) throws IOException {
        Segment segment = Segment.open(state.io, state.directory, base, state.config);
        state.segments.put(base, segment);
        long recoveryOffset = checkpointState == null ? RecoveryCheckpoint.UNKNOWN : checkpointState.recoveryOffset();
        if (checkpointState != null && checkpointState.clean() && segment.loadIndexes(recoveryOffset, false)) {
            return;
        }
        ScanResult result = segment.recover();
        if (!result.isComplete()) {
            if (result.nextOffset() < recoveryOffset) {
                throw new LogCorruptionException(segment.logPath(), result.validBytes(), result.problem()
                        + " (at offset " + result.nextOffset() + ", below the recovery point " + recoveryOffset + ")");
            }
            segment.truncateFile(result.validBytes());
        }
        if (recoveryOffset > segment.nextOffset()) {
            throw new LogCorruptionException(segment.logPath(), segment.sizeBytes(), "log ends at offset "
                    + segment.nextOffset() + " but offsets up to " + recoveryOffset + " had been flushed");
        }
    }
}
