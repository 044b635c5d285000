package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;
import static dev.cairn.broker.log.SegmentDescriptor.TIME_INDEX_ENTRY_BYTES;
import static dev.cairn.broker.log.SegmentDescriptor.TIME_INDEX_RELATIVE_OFFSET_OFFSET;
import static dev.cairn.broker.log.SegmentDescriptor.TIME_INDEX_TIMESTAMP_OFFSET;

import dev.cairn.broker.io.FileHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The sparse time index of one segment: for ListOffsets by timestamp and time-based retention.
 *
 * <pre>
 *  file &lt;20-digit baseOffset&gt;.timeindex, entries back to back, big-endian, no header:
 *  0                                   8                 12
 *  +-----------------------------------+-----------------+
 *  | maxTimestamp (ms, i64)            | relativeOffset  |
 *  +-----------------------------------+-----------------+
 * </pre>
 *
 * <p>Entry size {@link SegmentDescriptor#TIME_INDEX_ENTRY_BYTES} (12). An entry (T, o) says: the greatest
 * batch max-timestamp among all batches up to the index point is T, and the batch whose base offset is o
 * carries it. Timestamps strictly increase (an entry is added at an index point only when the running
 * maximum grew), offsets increase. When the segment stops being active a final entry with the segment's
 * maximum is added, so the last entry of an inactive segment is its largest timestamp. Not checksummed;
 * rebuilt from the log like the {@link OffsetIndex}, and written at the same moments. Like it, an inactive
 * segment's time index is sealed: no heap copy, lookups read the file.
 */
final class TimeIndex {
    private final long baseOffset;
    private volatile long[] timestamps;
    private volatile int[] relativeOffsets;
    private volatile int count;
    /** The index file a sealed index reads from; null while the entries are on the heap. */
    private volatile FileHandle file;
    private volatile long sealedLastTimestamp = NO_TIMESTAMP;
    private volatile long sealedLastOffset;

    TimeIndex(long baseOffset) {
        this.baseOffset = baseOffset;
        this.timestamps = new long[16];
        this.relativeOffsets = new int[16];
    }

    int count() {
        return count;
    }

    long lastTimestamp() {
        if (file != null) {
            return sealedLastTimestamp;
        }
        int n = count;
        return n == 0 ? NO_TIMESTAMP : timestamps[n - 1];
    }

    long lastOffset() {
        if (file != null) {
            return sealedLastOffset;
        }
        int n = count;
        return n == 0 ? baseOffset : baseOffset + relativeOffsets[n - 1];
    }

    /** Drops the heap copy: lookups read {@code indexFile}, which holds exactly these entries. */
    void seal(FileHandle indexFile) {
        sealedLastTimestamp = lastTimestamp();
        sealedLastOffset = lastOffset();
        file = indexFile;
        timestamps = null;
        relativeOffsets = null;
    }

    void close() throws IOException {
        FileHandle handle = file;
        if (handle != null) {
            handle.close();
        }
    }

    /** Adds an entry when {@code timestamp} exceeds the last one. */
    void maybeAppend(long timestamp, long offset) {
        Invariant.check(file == null, "append to the sealed time index of segment %d", baseOffset);
        int n = count;
        if (timestamp == NO_TIMESTAMP || (n > 0 && timestamp <= timestamps[n - 1])) {
            return;
        }
        long relative = offset - baseOffset;
        Invariant.check(relative >= 0 && relative <= SegmentDescriptor.RELATIVE_OFFSET_MAX,
                "time index offset %d outside segment %d", offset, baseOffset);
        Invariant.check(n == 0 || relative >= relativeOffsets[n - 1], "time index offsets decrease at %d",
                offset);
        long[] ts = timestamps;
        int[] offsets = relativeOffsets;
        if (n == ts.length) {
            ts = Arrays.copyOf(ts, n * 2);
            offsets = Arrays.copyOf(offsets, n * 2);
        }
        ts[n] = timestamp;
        offsets[n] = (int) relative;
        timestamps = ts;
        relativeOffsets = offsets;
        count = n + 1;
    }

    /** The offset from which to scan for the first batch with max timestamp at or above {@code target}. */
    long scanStartOffset(long target) throws IOException {
        int n = count;
        FileHandle sealed = file;
        long[] ts = timestamps;
        int[] offsets = relativeOffsets;
        ByteBuffer entry = ByteBuffer.allocate(TIME_INDEX_ENTRY_BYTES);
        int low = 0;
        int high = n - 1;
        int found = -1;
        long foundRelative = 0;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long timestamp;
            long relative;
            if (sealed == null) {
                timestamp = ts[mid];
                relative = offsets[mid];
            } else {
                entry.clear();
                sealed.readFully(entry, (long) mid * TIME_INDEX_ENTRY_BYTES);
                timestamp = entry.getLong(TIME_INDEX_TIMESTAMP_OFFSET);
                relative = entry.getInt(TIME_INDEX_RELATIVE_OFFSET_OFFSET);
            }
            if (timestamp < target) {
                found = mid;
                foundRelative = relative;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0 ? baseOffset : baseOffset + foundRelative;
    }

    /** Drops every entry for an offset at or above {@code offset}. */
    void truncateTo(long offset) {
        Invariant.check(file == null, "truncation of the sealed time index of segment %d", baseOffset);
        int n = count;
        int[] offsets = relativeOffsets;
        while (n > 0 && baseOffset + offsets[n - 1] >= offset) {
            n--;
        }
        count = n;
    }

    void writeTo(FileHandle target) throws IOException {
        Invariant.check(file == null, "rewrite of the sealed time index of segment %d", baseOffset);
        int n = count;
        long[] ts = timestamps;
        int[] offsets = relativeOffsets;
        ByteBuffer buffer = ByteBuffer.allocate(n * TIME_INDEX_ENTRY_BYTES);
        for (int i = 0; i < n; i++) {
            buffer.putLong(ts[i]).putInt(offsets[i]);
        }
        buffer.flip();
        target.write(buffer, 0);
        target.truncate((long) n * TIME_INDEX_ENTRY_BYTES);
        target.force();
    }

    /**
     * Opens the time index of an inactive segment sealed, after a cheap sanity check (whole entries; the last
     * one, which names the segment's largest timestamp, non-negative and below {@code nextOffset}). Null when
     * unusable.
     */
    static TimeIndex openSealed(FileHandle file, long baseOffset, long nextOffset) throws IOException {
        long size = file.size();
        if (size % TIME_INDEX_ENTRY_BYTES != 0 || size == 0 || size / TIME_INDEX_ENTRY_BYTES > Integer.MAX_VALUE) {
            return null;
        }
        ByteBuffer last = ByteBuffer.allocate(TIME_INDEX_ENTRY_BYTES);
        file.readFully(last, size - TIME_INDEX_ENTRY_BYTES);
        long timestamp = last.getLong(TIME_INDEX_TIMESTAMP_OFFSET);
        int relative = last.getInt(TIME_INDEX_RELATIVE_OFFSET_OFFSET);
        if (timestamp < 0 || relative < 0 || baseOffset + relative >= nextOffset) {
            return null;
        }
        TimeIndex index = new TimeIndex(baseOffset);
        index.count = (int) (size / TIME_INDEX_ENTRY_BYTES);
        index.sealedLastTimestamp = timestamp;
        index.sealedLastOffset = baseOffset + relative;
        index.file = file;
        index.timestamps = null;
        index.relativeOffsets = null;
        return index;
    }

    /**
     * Loads a whole time index onto the heap (for an active segment), fully checked; null when unusable (then
     * it is rebuilt from the log).
     */
    static TimeIndex load(FileHandle file, long baseOffset, long nextOffset) throws IOException {
        long size = file.size();
        if (size % TIME_INDEX_ENTRY_BYTES != 0 || size > Integer.MAX_VALUE) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) size);
        file.readFully(buffer, 0);
        buffer.flip();
        TimeIndex index = new TimeIndex(baseOffset);
        for (int at = 0; at < size; at += TIME_INDEX_ENTRY_BYTES) {
            long timestamp = buffer.getLong(at + TIME_INDEX_TIMESTAMP_OFFSET);
            int relative = buffer.getInt(at + TIME_INDEX_RELATIVE_OFFSET_OFFSET);
            int n = index.count;
            if (timestamp < 0 || relative < 0 || baseOffset + relative >= nextOffset
                    || (n > 0 && (timestamp <= index.timestamps[n - 1] || relative < index.relativeOffsets[n - 1]))) {
                return null;
            }
            index.maybeAppend(timestamp, baseOffset + relative);
        }
        return index;
    }
}
