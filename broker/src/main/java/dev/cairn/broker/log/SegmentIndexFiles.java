package dev.cairn.broker.log;

import static dev.cairn.protocol.record.RecordBatchDescriptor.HEADER_BYTES;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The two index files of one {@link Segment}, {@code .index} and {@code .timeindex}: written and sealed when the
 * segment becomes inactive, and loaded on open when they pass their sanity checks and agree with the end of the
 * {@code .log} file, so that the segment need not be scanned.
 */
final class SegmentIndexFiles {
    private final FileIo io;
    private final Path directory;
    private final long baseOffset;
    private final FileHandle log;
    private final int offsetIndexEntriesMax;

    SegmentIndexFiles(FileIo io, Path directory, long baseOffset, FileHandle log, int offsetIndexEntriesMax) {
        this.io = io;
        this.directory = directory;
        this.baseOffset = baseOffset;
        this.log = log;
        this.offsetIndexEntriesMax = offsetIndexEntriesMax;
    }

    /** The indexes loaded from the files. */
    record Loaded(OffsetIndex offsetIndex, TimeIndex timeIndex) {
    }

    /** Writes both indexes to their files, forced, and seals them onto the files (no heap copy from now on). */
    void writeAndSeal(OffsetIndex offsetIndex, TimeIndex timeIndex) throws IOException {
        FileHandle offsetFile = io.open(SegmentDescriptor.offsetIndexFile(directory, baseOffset));
        FileHandle timeFile = null;
        try {
            offsetIndex.writeTo(offsetFile);
            timeFile = io.open(SegmentDescriptor.timeIndexFile(directory, baseOffset));
            timeIndex.writeTo(timeFile);
        } catch (IOException e) {
            offsetFile.close();
            if (timeFile != null) {
                timeFile.close();
            }
            throw e;
        }
        offsetIndex.seal(offsetFile);
        timeIndex.seal(timeFile);
    }

    /**
     * Loads the index files, sealed onto their files or copied to the heap, for a log of {@code logBytes} trusted to
     * end at {@code expectedNextOffset}. Returns null when an index is missing or fails its sanity check.
     */
    Loaded load(long logBytes, long expectedNextOffset, boolean sealed) throws IOException {
        Path offsetIndexPath = SegmentDescriptor.offsetIndexFile(directory, baseOffset);
        Path timeIndexPath = SegmentDescriptor.timeIndexFile(directory, baseOffset);
        if (!io.exists(offsetIndexPath) || !io.exists(timeIndexPath) || logBytes > SegmentDescriptor.SEGMENT_BYTES_MAX
                || logBytes < HEADER_BYTES || expectedNextOffset <= baseOffset) {
            return null;
        }
        OffsetIndex loadedOffsets = null;
        TimeIndex loadedTimes = null;
        FileHandle offsetFile = io.open(offsetIndexPath);
        FileHandle timeFile = io.open(timeIndexPath);
        boolean usable = false;
        try {
            if (sealed) {
                loadedOffsets = OffsetIndex.openSealed(offsetFile, baseOffset, offsetIndexEntriesMax, logBytes,
                        expectedNextOffset);
                loadedTimes = TimeIndex.openSealed(timeFile, baseOffset, expectedNextOffset);
            } else {
                loadedOffsets = OffsetIndex.load(offsetFile, baseOffset, offsetIndexEntriesMax, logBytes,
                        expectedNextOffset);
                loadedTimes = TimeIndex.load(timeFile, baseOffset, expectedNextOffset);
            }
            usable = loadedOffsets != null && loadedTimes != null && loadedTimes.count() > 0
                    && checkTail(loadedOffsets, logBytes, expectedNextOffset);
        } finally {
            if (!usable || !sealed) {
                offsetFile.close();
                timeFile.close();
            }
        }
        return usable ? new Loaded(loadedOffsets, loadedTimes) : null;
    }

    /** Whether the batches after the last index entry are dense and end exactly at the file end. */
    private boolean checkTail(OffsetIndex loadedOffsets, long logBytes, long expectedNextOffset) throws IOException {
        // Walk the batch headers after the last entry: they must be dense, start at the offset the entry
        // claims, and end exactly at the end of the file with the expected next offset.
        int last = loadedOffsets.count() - 1;
        int position = last < 0 ? 0 : loadedOffsets.positionAt(last);
        long expected = last < 0 ? baseOffset : loadedOffsets.offsetAt(last);
        BatchHeader header = new BatchHeader(log);
        while (position < logBytes) {
            if (!header.tryRead(position, (int) logBytes) || header.baseOffset != expected) {
                return false;
            }
            position += header.sizeBytes;
            expected = header.lastOffset + 1;
        }
        return position == logBytes && expected == expectedNextOffset && header.tryRead(0, (int) logBytes)
                && header.baseOffset == baseOffset;
    }
}
