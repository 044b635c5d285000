package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.OFFSET_INDEX_ENTRY_BYTES;
import static dev.cairn.broker.log.SegmentDescriptor.OFFSET_INDEX_POSITION_OFFSET;
import static dev.cairn.broker.log.SegmentDescriptor.OFFSET_INDEX_RELATIVE_OFFSET_OFFSET;

import dev.cairn.broker.io.FileHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The sparse offset index of one segment: maps a batch's base offset to its byte position in the
 * segment's {@code .log} file, with one entry per {@link LogConfig#indexIntervalBytes()} of log.
 *
 * <pre>
 *  file &lt;20-digit baseOffset&gt;.index, entries back to back, big-endian, no header:
 *  0                 4                 8
 *  +-----------------+-----------------+
 *  | relativeOffset  | position        |   relativeOffset = batch baseOffset - segment baseOffset (i32)
 *  +-----------------+-----------------+   position       = byte position of that batch in the .log (i32)
 * </pre>
 *
 * <p>Entry size {@link SegmentDescriptor#OFFSET_INDEX_ENTRY_BYTES} (8). Both columns strictly increase. There
 * is no entry for position 0: a lookup that finds no entry starts at the segment's first batch. Nothing is
 * checksummed: the index is derived state, rebuilt by scanning the {@code .log} whenever it is missing or
 * fails the sanity check in {@link #load} (sizes, monotonic columns, entries inside the log). The entries
 * live on the heap; the file is written whole when the segment stops being active (roll) and on clean
 * close, so after a crash the index of the active segment is rebuilt from its log.
 *
 * <p>Threads: one writer appends and truncates; readers call the lookups concurrently. The entry count is
 * published through a volatile after the entry is stored.
 */
final class OffsetIndex {
    private final long baseOffset;
    private final int entriesMax;
    /** Interleaved (relativeOffset, position) pairs. */
    private volatile int[] entries;
    private volatile int count;

    OffsetIndex(long baseOffset, int entriesMax) {
        this.baseOffset = baseOffset;
        this.entriesMax = entriesMax;
        this.entries = new int[64];
    }

    int count() {
        return count;
    }

    boolean isFull() {
        return count >= entriesMax;
    }

    long offsetAt(int entry) {
        return baseOffset + entries[2 * entry];
    }

    int positionAt(int entry) {
        return entries[2 * entry + 1];
    }

    void append(long offset, int position) {
        int n = count;
        Invariant.check(n < entriesMax, "offset index of segment %d is full with %d entries", baseOffset, n);
        long relative = offset - baseOffset;
        Invariant.check(relative > 0 && relative <= SegmentDescriptor.RELATIVE_OFFSET_MAX,
                "index offset %d outside segment %d", offset, baseOffset);
        Invariant.check(n == 0 || relative > entries[2 * n - 2], "index offsets not increasing at %d", offset);
        Invariant.check(n == 0 || position > entries[2 * n - 1], "index positions not increasing at %d",
                position);
        int[] array = entries;
        if (2 * n + 2 > array.length) {
            array = Arrays.copyOf(array, Math.min(array.length * 2, 2 * entriesMax));
        }
        array[2 * n] = (int) relative;
        array[2 * n + 1] = position;
        entries = array;
        count = n + 1;
    }

    /** The entry with the greatest offset not above {@code offset}, or -1. */
    int floorEntryByOffset(long offset) {
        int n = count;
        int[] array = entries;
        long relative = offset - baseOffset;
        int low = 0;
        int high = n - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (array[2 * mid] <= relative) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** The entry with the greatest position not above {@code position}, or -1. */
    int floorEntryByPosition(long position) {
        int n = count;
        int[] array = entries;
        int low = 0;
        int high = n - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (array[2 * mid + 1] <= position) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** Drops every entry for an offset at or above {@code offset}. */
    void truncateTo(long offset) {
        int keep = floorEntryByOffset(offset - 1) + 1;
        count = Math.max(0, keep);
    }

    /** The position of the last entry, or 0 when empty. */
    int lastPosition() {
        int n = count;
        return n == 0 ? 0 : entries[2 * n - 1];
    }

    /** Writes the whole index to {@code file}, cuts it to size and forces it. */
    void writeTo(FileHandle file) throws IOException {
        int n = count;
        int[] array = entries;
        ByteBuffer buffer = ByteBuffer.allocate(n * OFFSET_INDEX_ENTRY_BYTES);
        for (int i = 0; i < n; i++) {
            buffer.putInt(array[2 * i]).putInt(array[2 * i + 1]);
        }
        buffer.flip();
        file.write(buffer, 0);
        file.truncate((long) n * OFFSET_INDEX_ENTRY_BYTES);
        file.force();
    }

    /**
     * Loads and sanity-checks an index file for a segment whose log holds {@code logBytes} bytes and offsets
     * below {@code nextOffset}. Returns null when the file is unusable and must be rebuilt.
     */
    static OffsetIndex load(FileHandle file, long baseOffset, int entriesMax, long logBytes, long nextOffset)
            throws IOException {
        long size = file.size();
        if (size % OFFSET_INDEX_ENTRY_BYTES != 0 || size / OFFSET_INDEX_ENTRY_BYTES > entriesMax) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) size);
        file.readFully(buffer, 0);
        buffer.flip();
        OffsetIndex index = new OffsetIndex(baseOffset, entriesMax);
        int lastRelative = 0;
        int lastPosition = 0;
        for (int at = 0; at < size; at += OFFSET_INDEX_ENTRY_BYTES) {
            int relative = buffer.getInt(at + OFFSET_INDEX_RELATIVE_OFFSET_OFFSET);
            int position = buffer.getInt(at + OFFSET_INDEX_POSITION_OFFSET);
            if (relative <= lastRelative || position <= lastPosition || position >= logBytes
                    || baseOffset + relative >= nextOffset) {
                return null;
            }
            index.append(baseOffset + relative, position);
            lastRelative = relative;
            lastPosition = position;
        }
        return index;
    }
}
