package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.log.SegmentScanner.ScanResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One segment of a partition's log: a {@code .log} file of record batches plus its sparse {@link OffsetIndex}
 * and {@link TimeIndex}.
 *
 * <pre>
 *  &lt;dir&gt;/00000000000000000000.log        &lt;dir&gt;/00000000000000004711.log    (20-digit base offset)
 *  +---------------------+---------------------+-----+---------------------+
 *  | batch baseOffset=B  | batch B+n1          | ... | batch ...           |   RecordBatch v2 exactly as sent
 *  | (61-byte header +   |                     |     |                     |   on the wire after offset
 *  |  records)           |                     |     |                     |   assignment, back to back
 *  +---------------------+---------------------+-----+---------------------+
 *  0                     size(batch 1)                                size &lt;= segment.bytes &lt;= 2^31-1
 * </pre>
 *
 * <p>No file header and no padding: the first batch's baseOffset equals the base offset in the file name,
 * and each next batch starts at the previous batch's lastOffset + 1 (offsets are dense). Each batch carries
 * its own CRC-32C over attributes..end (see {@code RecordBatchDescriptor}); baseOffset, length, leader epoch
 * and magic are outside the CRC, so recovery also checks that length fits the file, magic is 2 and offsets
 * are dense. After a crash the active segment is scanned batch by batch: a torn or corrupt tail beyond the
 * flushed point is truncated and the indexes are rebuilt; damage inside flushed data, or inside any inactive
 * segment (which is fsynced when it is rolled), raises {@link LogCorruptionException}.
 *
 * <p>Threads: the {@link Log}'s single writer appends; fetch readers read up to the published
 * {@link #sizeBytes()}, through positional reads that do not disturb the writer.
 *
 * <p>Helpers: {@link SegmentScanner} scans the file for recovery, {@link SegmentIndexFiles} writes and loads the
 * index files, {@link BatchHeader} reads one batch header at a time for seeks and reads.
 */
final class Segment {
    private final FileIo io;
    private final Path directory;
    private final long baseOffset;
    private final FileHandle log;
    private final int indexIntervalBytes;
    private final int offsetIndexEntriesMax;
    private final SegmentIndexFiles indexFiles;
    /**
     * Replaced when the indexes are loaded or rebuilt (a sealed segment truncated becomes active again) while readers
     * look up positions on other threads: volatile, and each lookup reads it once.
     */
    private volatile OffsetIndex offsetIndex;
    private volatile TimeIndex timeIndex;
    /** Bytes of whole batches, published to readers after each append. */
    private volatile int sizeBytes;
    private volatile long nextOffset;
    private volatile long maxTimestamp = NO_TIMESTAMP;
    private long offsetOfMaxTimestamp;
    private long firstBatchTimestamp = NO_TIMESTAMP;
    private int bytesSinceLastIndexEntry;

    private Segment(FileIo io, Path directory, long baseOffset, FileHandle log, LogConfig config) {
        this.io = io;
        this.directory = directory;
        this.baseOffset = baseOffset;
        this.log = log;
        this.indexIntervalBytes = config.indexIntervalBytes();
        this.offsetIndexEntriesMax = config.offsetIndexEntriesMax();
        this.indexFiles = new SegmentIndexFiles(io, directory, baseOffset, log, offsetIndexEntriesMax);
        this.offsetIndex = new OffsetIndex(baseOffset, offsetIndexEntriesMax);
        this.timeIndex = new TimeIndex(baseOffset);
        this.nextOffset = baseOffset;
        this.offsetOfMaxTimestamp = baseOffset;
    }

    /** Opens the files of a segment (creating an empty {@code .log} when absent); state is set by a load. */
    static Segment open(FileIo io, Path directory, long baseOffset, LogConfig config) throws IOException {
        FileHandle log = io.open(SegmentDescriptor.logFile(directory, baseOffset));
        return new Segment(io, directory, baseOffset, log, config);
    }

    long baseOffset() {
        return baseOffset;
    }

    int sizeBytes() {
        return sizeBytes;
    }

    long nextOffset() {
        return nextOffset;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    long firstBatchTimestamp() {
        return firstBatchTimestamp;
    }

    boolean isEmpty() {
        return sizeBytes == 0;
    }

    boolean isOffsetIndexFull() {
        return offsetIndex.isFull();
    }

    Path logPath() {
        return log.path();
    }

    FileHandle logFile() {
        return log;
    }

    /** Appends one validated batch at the end; on failure the file is cut back and nothing is published. */
    void append(ByteBuffer batch, long batchBaseOffset, long lastOffset, long batchMaxTimestamp)
            throws IOException {
        append(batch, EMPTY, batchBaseOffset, lastOffset, batchMaxTimestamp);
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    /**
     * Appends one validated batch given in two parts, {@code head} then {@code rest} (a header patched in a buffer of
     * its own, and the records where they lie); on failure the file is cut back and nothing is published.
     */
    void append(ByteBuffer head, ByteBuffer rest, long batchBaseOffset, long lastOffset, long batchMaxTimestamp)
            throws IOException {
        Invariant.check(batchBaseOffset == nextOffset, "segment %d: batch base offset %d, next offset %d",
                baseOffset, batchBaseOffset, nextOffset);
        int position = sizeBytes;
        int size = head.remaining() + rest.remaining();
        try {
            log.write(head.duplicate(), position);
            if (rest.hasRemaining()) {
                log.write(rest.duplicate(), position + head.remaining());
            }
        } catch (IOException e) {
            // A partial write (disk full) must not survive: cut the file back to the last whole batch.
            try {
                log.truncate(position);
            } catch (IOException truncateFailure) {
                e.addSuppressed(truncateFailure);
            }
            throw e;
        }
        onBatch(position, size, batchBaseOffset, lastOffset, batchMaxTimestamp);
    }

    private void onBatch(int position, int size, long batchBaseOffset, long lastOffset, long batchMaxTimestamp) {
        if (position == 0) {
            firstBatchTimestamp = batchMaxTimestamp;
        }
        if (batchMaxTimestamp > maxTimestamp) {
            maxTimestamp = batchMaxTimestamp;
            offsetOfMaxTimestamp = batchBaseOffset;
        }
        if (position > 0 && bytesSinceLastIndexEntry >= indexIntervalBytes && !offsetIndex.isFull()) {
            offsetIndex.append(batchBaseOffset, position);
            timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += size;
        sizeBytes = position + size;
        nextOffset = lastOffset + 1;
    }

    /** Forces the log file. */
    void flush() throws IOException {
        log.force();
    }

    /**
     * Called when the segment stops being active (after the caller forced the log): final time index entry,
     * index files written, forced and sealed (no heap copy from now on). On failure nothing is sealed and the
     * segment can stay active.
     */
    void onBecomeInactive() throws IOException {
        timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
        writeIndexesAndSeal();
    }

    void writeIndexesAndSeal() throws IOException {
        indexFiles.writeAndSeal(offsetIndex, timeIndex);
    }

    /**
     * Loads the index files of a segment whose log is trusted to end at {@code expectedNextOffset}. Returns
     * false when an index is missing or fails its sanity check; the caller then recovers the segment.
     */
    boolean loadIndexes(long expectedNextOffset, boolean sealed) throws IOException {
        long logBytes = log.size();
        SegmentIndexFiles.Loaded loaded = indexFiles.load(logBytes, expectedNextOffset, sealed);
        if (loaded == null) {
            return false;
        }
        offsetIndex = loaded.offsetIndex();
        timeIndex = loaded.timeIndex();
        BatchHeader header = new BatchHeader(log);
        header.read(0, (int) logBytes);
        firstBatchTimestamp = header.maxTimestamp;
        maxTimestamp = timeIndex.lastTimestamp();
        offsetOfMaxTimestamp = timeIndex.lastOffset();
        bytesSinceLastIndexEntry = (int) logBytes - offsetIndex.lastPosition();
        sizeBytes = (int) logBytes;
        nextOffset = expectedNextOffset;
        return true;
    }

    /**
     * Scans the whole {@code .log} batch by batch (length, magic, CRC-32C, dense offsets), rebuilding both
     * indexes and the in-memory state from the valid prefix. The file itself is not modified.
     */
    ScanResult recover() throws IOException {
        offsetIndex = new OffsetIndex(baseOffset, offsetIndexEntriesMax);
        timeIndex = new TimeIndex(baseOffset);
        sizeBytes = 0;
        nextOffset = baseOffset;
        maxTimestamp = NO_TIMESTAMP;
        offsetOfMaxTimestamp = baseOffset;
        firstBatchTimestamp = NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
        ScanResult result = SegmentScanner.scan(log, baseOffset, this::onBatch);
        if (result.isComplete()) {
            Invariant.check(result.validBytes() == sizeBytes, "recovered position %d != valid bytes %d",
                    result.validBytes(), sizeBytes);
        }
        return result;
    }

    /** Cuts the log file to {@code validBytes} (after a recovery found a torn tail) and forces it. */
    void truncateFile(int validBytes) throws IOException {
        Invariant.check(validBytes == sizeBytes, "truncating to %d, recovered %d", validBytes, sizeBytes);
        log.truncate(validBytes);
        log.force();
    }

    /**
     * Removes every batch from the one containing {@code offset} on, forcing the file. Returns the new next
     * offset (the base offset of the first removed batch, or the old next offset when nothing was removed).
     */
    long truncateTo(long offset) throws IOException {
        if (offset >= nextOffset) {
            return nextOffset;
        }
        if (offsetIndex.isSealed()) {
            // An inactive segment becomes active again: rebuild its heap indexes from the (flushed) log.
            offsetIndex.close();
            timeIndex.close();
            ScanResult result = recover();
            if (!result.isComplete()) {
                throw new LogCorruptionException(log.path(), result.validBytes(), result.problem());
            }
        }
        BatchHeader header = new BatchHeader(log);
        int position = offset <= baseOffset ? 0 : seek(header, offset, sizeBytes);
        long newNextOffset = position == 0 ? baseOffset : header.baseOffset;
        log.truncate(position);
        log.force();
        offsetIndex.truncateTo(newNextOffset);
        timeIndex.truncateTo(newNextOffset);
        // Recompute the running maximum: the last kept time index entry (T, o) names batch o, which is kept, and
        // every batch before o has a smaller timestamp; so scanning from batch o to the new end suffices.
        maxTimestamp = timeIndex.lastTimestamp();
        offsetOfMaxTimestamp = timeIndex.lastOffset();
        firstBatchTimestamp = NO_TIMESTAMP;
        if (position > 0) {
            int scan = seek(header, offsetOfMaxTimestamp, position);
            while (scan < position) {
                header.read(scan, position);
                if (header.maxTimestamp > maxTimestamp) {
                    maxTimestamp = header.maxTimestamp;
                    offsetOfMaxTimestamp = header.baseOffset;
                }
                scan += header.sizeBytes;
            }
            header.read(0, position);
            firstBatchTimestamp = header.maxTimestamp;
        }
        bytesSinceLastIndexEntry = position - offsetIndex.lastPosition();
        sizeBytes = position;
        nextOffset = newNextOffset;
        return newNextOffset;
    }

    /** The position where the batch holding {@code offset} starts: 0 at or below the base, the size at the end. */
    int positionOf(long offset) throws IOException {
        if (offset >= nextOffset) {
            return sizeBytes;
        }
        return offset <= baseOffset ? 0 : seek(new BatchHeader(log), offset, sizeBytes);
    }

    /**
     * The position of the batch that contains {@code offset} (or the first batch after it), scanning headers
     * from the nearest index entry; {@code limit} bounds the bytes looked at. Leaves that batch in {@code header}.
     */
    private int seek(BatchHeader header, long offset, int limit) throws IOException {
        OffsetIndex index = offsetIndex;
        int entry = index.floorEntryByOffset(offset);
        int position = entry < 0 ? 0 : index.positionAt(entry);
        long expected = entry < 0 ? baseOffset : index.offsetAt(entry);
        while (position < limit) {
            header.read(position, limit);
            if (header.baseOffset != expected) {
                throw new LogCorruptionException(log.path(), position,
                        "batch base offset " + header.baseOffset + ", expected " + expected);
            }
            if (header.lastOffset >= offset) {
                return position;
            }
            position += header.sizeBytes;
            expected = header.lastOffset + 1;
        }
        return limit;
    }

    /**
     * Whole batches from the one containing {@code fetchOffset}: at least that batch, then more while the
     * total stays within {@code maxBytes} and the batches end below {@code upToOffset}.
     */
    LogSlice read(long fetchOffset, int maxBytes, long upToOffset) throws IOException {
        int limit = sizeBytes;
        BatchHeader header = new BatchHeader(log);
        int start = seek(header, fetchOffset, limit);
        if (start >= limit || header.lastOffset >= upToOffset) {
            return LogSlice.empty(fetchOffset);
        }
        long firstOffset = header.baseOffset;
        long next = header.lastOffset + 1;
        int end = start + header.sizeBytes;
        long target = Math.min((long) limit, (long) start + Math.max(maxBytes, 0));
        if (end < target) {
            // Jump over whole index intervals that are known to fit, then walk the last interval's headers.
            OffsetIndex index = offsetIndex;
            int entry = Math.min(index.floorEntryByPosition(target), index.floorEntryByOffset(upToOffset));
            if (entry >= 0 && index.positionAt(entry) > end) {
                end = index.positionAt(entry);
                next = index.offsetAt(entry);
            }
            while (end < target) {
                header.read(end, limit);
                if (header.baseOffset != next) {
                    throw new LogCorruptionException(log.path(), end,
                            "batch base offset " + header.baseOffset + ", expected " + next);
                }
                if (end + header.sizeBytes > target || header.lastOffset >= upToOffset) {
                    break;
                }
                end += header.sizeBytes;
                next = header.lastOffset + 1;
            }
        }
        return new LogSlice(log, start, end - start, firstOffset, next);
    }

    /** The base offset of the first batch whose max timestamp is at or above {@code target}, or -1. */
    long offsetForTimestamp(long target) throws IOException {
        int limit = sizeBytes;
        BatchHeader header = new BatchHeader(log);
        int position = seek(header, timeIndex.scanStartOffset(target), limit);
        while (position < limit) {
            header.read(position, limit);
            if (header.maxTimestamp >= target) {
                return header.baseOffset;
            }
            position += header.sizeBytes;
        }
        return -1;
    }

    /** Unlinks the segment's files (log first, so a crash never leaves a log without its name). */
    void deleteFiles() throws IOException {
        io.delete(log.path());
        io.delete(SegmentDescriptor.offsetIndexFile(directory, baseOffset));
        io.delete(SegmentDescriptor.timeIndexFile(directory, baseOffset));
    }

    void close() throws IOException {
        try {
            offsetIndex.close();
            timeIndex.close();
        } finally {
            log.close();
        }
    }

    @Override
    public String toString() {
        return "Segment[" + baseOffset + ".." + nextOffset + ", " + sizeBytes + " bytes]";
    }
}
