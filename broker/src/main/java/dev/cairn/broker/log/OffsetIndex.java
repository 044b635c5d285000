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
 * fails the sanity check in {@link #load} / {@link #openSealed} (sizes, monotonic columns, entries inside the
 * log). The active segment's entries live on the heap; the file is written whole when the segment stops
 * being active (roll) and on clean close, so after a crash the index of the active segment is rebuilt from
 * its log. An inactive segment's index is sealed: no heap copy, lookups binary-search the file with
 * positional reads (about 18 reads of 8 bytes for a full 1 GiB segment), so memory does not grow with the
 * size of the log. A damaged entry in a sealed index is caught by the header check of the lookup that
 * uses it ({@link LogCorruptionException}), never turned into wrong data.
 *
 * <p>Threads: one writer appends and truncates; readers call the lookups concurrently. The entry count is
 * published through a volatile after the entry is stored.
 */
final class OffsetIndex {
    private final long baseOffset;
    private final int entriesMax;
    /** Interleaved (relativeOffset, position) pairs; null once sealed. */
    private volatile int[] entries;
    private volatile int count;
    /** The index file a sealed index reads from; set before {@link #entries} is dropped. */
    private volatile FileHandle file;

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

    boolean isSealed() {
        return entries == null;
    }

    long offsetAt(int entry) throws IOException {
        return baseOffset + column(entry, 0);
    }

    int positionAt(int entry) throws IOException {
        return column(entry, 1);
    }

    /** Column 0 (relative offset) or 1 (position) of an entry, from the heap or, when sealed, the file. */
    private int column(int entry, int column) throws IOException {
        int[] array = entries;
        if (array != null) {
            return array[2 * entry + column];
        }
        ByteBuffer buffer = ByteBuffer.allocate(4);
        file.readFully(buffer, (long) entry * OFFSET_INDEX_ENTRY_BYTES + 4L * column);
        return buffer.getInt(0);
    }

    /** Drops the heap copy: lookups read {@code indexFile}, which holds exactly these entries. */
    void seal(FileHandle indexFile) {
        file = indexFile;
        entries = null;
    }

    /** Closes the file of a sealed index. */
    void close() throws IOException {
        FileHandle handle = file;
        if (handle != null) {
            handle.close();
        }
    }

    void append(long offset, int position) {
        Invariant.check(entries != null, "append to the sealed offset index of segment %d", baseOffset);
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
    int floorEntryByOffset(long offset) throws IOException {
        return floorEntry(offset - baseOffset, 0);
    }

    /** The entry with the greatest position not above {@code position}, or -1. */
    int floorEntryByPosition(long position) throws IOException {
        return floorEntry(position, 1);
    }

    private int floorEntry(long key, int column) throws IOException {
        int n = count;
        int low = 0;
        int high = n - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (column(mid, column) <= key) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** Drops every entry for an offset at or above {@code offset} (active segments only). */
    void truncateTo(long offset) throws IOException {
        Invariant.check(entries != null, "truncation of the sealed offset index of segment %d", baseOffset);
        int keep = floorEntryByOffset(offset - 1) + 1;
        count = Math.max(0, keep);
    }

    /** The position of the last entry, or 0 when empty. */
    int lastPosition() throws IOException {
        int n = count;
        return n == 0 ? 0 : positionAt(n - 1);
    }

    /** Writes the whole index to {@code file}, cuts it to size and forces it. */
    void writeTo(FileHandle target) throws IOException {
        Invariant.check(entries != null, "rewrite of the sealed offset index of segment %d", baseOffset);
        int n = count;
        int[] array = entries;
        ByteBuffer buffer = ByteBuffer.allocate(n * OFFSET_INDEX_ENTRY_BYTES);
        for (int i = 0; i < n; i++) {
            buffer.putInt(array[2 * i]).putInt(array[2 * i + 1]);
        }
        buffer.flip();
        target.write(buffer, 0);
        target.truncate((long) n * OFFSET_INDEX_ENTRY_BYTES);
        target.force();
    }

    /**
     * Opens the index of an inactive segment sealed, after a cheap sanity check (size a whole number of
     * entries within {@code entriesMax}; first and last entries inside the log and below {@code nextOffset};
     * the caller also checks the batch the last entry names). Returns null when unusable.
     */
    static OffsetIndex openSealed(FileHandle file, long baseOffset, int entriesMax, long logBytes, long nextOffset)
            throws IOException {
        long size = file.size();
        if (size % OFFSET_INDEX_ENTRY_BYTES != 0 || size / OFFSET_INDEX_ENTRY_BYTES > entriesMax) {
            return null;
        }
        OffsetIndex index = new OffsetIndex(baseOffset, entriesMax);
        index.count = (int) (size / OFFSET_INDEX_ENTRY_BYTES);
        index.seal(file);
        int n = index.count;
        if (n > 0) {
            long firstRelative = index.offsetAt(0) - baseOffset;
            if (firstRelative <= 0 || index.positionAt(0) <= 0 || index.offsetAt(n - 1) >= nextOffset
                    || index.positionAt(n - 1) >= logBytes || index.offsetAt(n - 1) < index.offsetAt(0)
                    || index.positionAt(n - 1) < index.positionAt(0)) {
                return null;
            }
        }
        return index;
    }

    /**
     * Loads and sanity-checks an index file for a segment whose log holds {@code logBytes} bytes and offsets
     * below {@code nextOffset}. Returns null when the file is unusable and must be rebuilt.
     */
    /** Loads a whole index file onto the heap (for an active segment), fully checked. */
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
