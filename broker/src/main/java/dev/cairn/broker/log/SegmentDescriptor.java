package dev.cairn.broker.log;

import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.nio.file.Path;

/**
 * Names, layouts and hard limits of the on-disk log (style.md points 8 and 10). The formats themselves are
 * described in {@link Segment}, {@link OffsetIndex}, {@link TimeIndex} and {@link RecoveryCheckpoint}.
 */
public final class SegmentDescriptor {
    /** Segment data file: record batches exactly as on the wire after offset assignment. */
    public static final String LOG_SUFFIX = ".log";
    /** A compacted copy of a segment being written; it replaces the {@code .log} file once complete. */
    public static final String CLEANED_SUFFIX = ".log.cleaned";
    /** Sparse offset index of a segment. */
    public static final String OFFSET_INDEX_SUFFIX = ".index";
    /** Sparse time index of a segment. */
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    /** Base offsets are zero-padded to this many digits, as Kafka does, so names sort like offsets. */
    public static final int FILE_NAME_DIGITS = 20;

    /** Offset index entry: relative offset (i32) then file position (i32). */
    public static final int OFFSET_INDEX_ENTRY_BYTES = 8;
    public static final int OFFSET_INDEX_RELATIVE_OFFSET_OFFSET = 0;
    public static final int OFFSET_INDEX_POSITION_OFFSET = 4;

    /** Time index entry: max timestamp so far (i64) then relative offset (i32). */
    public static final int TIME_INDEX_ENTRY_BYTES = 12;
    public static final int TIME_INDEX_TIMESTAMP_OFFSET = 0;
    public static final int TIME_INDEX_RELATIVE_OFFSET_OFFSET = 8;

    /** Index positions are 32-bit, so a segment can never be larger than this. */
    public static final long SEGMENT_BYTES_MAX = Integer.MAX_VALUE;
    /** The smallest segment size a configuration may ask for: room for one maximal header. */
    public static final int SEGMENT_BYTES_MIN = RecordBatchDescriptor.HEADER_BYTES;
    /** Offsets inside a segment are stored relative to its base in 32 bits. */
    public static final long RELATIVE_OFFSET_MAX = Integer.MAX_VALUE;
    /** Bytes read per I/O call while scanning a segment during recovery. */
    public static final int RECOVERY_READ_BYTES = 1 << 20;
    /** Sentinel for "no timestamp seen", as Kafka's RecordBatch.NO_TIMESTAMP. */
    public static final long NO_TIMESTAMP = -1L;

    static {
        Invariant.check(SEGMENT_BYTES_MAX <= Integer.MAX_VALUE,
                "SEGMENT_BYTES_MAX %d must fit the 32-bit index positions", SEGMENT_BYTES_MAX);
        Invariant.check(SEGMENT_BYTES_MIN >= RecordBatchDescriptor.HEADER_BYTES,
                "SEGMENT_BYTES_MIN %d below one batch header %d", SEGMENT_BYTES_MIN,
                RecordBatchDescriptor.HEADER_BYTES);
        Invariant.check(RECOVERY_READ_BYTES >= RecordBatchDescriptor.HEADER_BYTES,
                "RECOVERY_READ_BYTES %d below one batch header %d", RECOVERY_READ_BYTES,
                RecordBatchDescriptor.HEADER_BYTES);
    }

    private SegmentDescriptor() {
    }

    /** {@code 00000000000000000042} for base offset 42. */
    public static String fileNamePrefix(long baseOffset) {
        Invariant.check(baseOffset >= 0, "negative base offset %d", baseOffset);
        return String.format("%0" + FILE_NAME_DIGITS + "d", baseOffset);
    }

    public static Path logFile(Path directory, long baseOffset) {
        return directory.resolve(fileNamePrefix(baseOffset) + LOG_SUFFIX);
    }

    public static Path cleanedFile(Path directory, long baseOffset) {
        return directory.resolve(fileNamePrefix(baseOffset) + CLEANED_SUFFIX);
    }

    public static Path offsetIndexFile(Path directory, long baseOffset) {
        return directory.resolve(fileNamePrefix(baseOffset) + OFFSET_INDEX_SUFFIX);
    }

    public static Path timeIndexFile(Path directory, long baseOffset) {
        return directory.resolve(fileNamePrefix(baseOffset) + TIME_INDEX_SUFFIX);
    }

    /** The base offset named by a segment file, or -1 when the name is not a segment file name. */
    public static long baseOffsetOf(Path file, String suffix) {
        String name = file.getFileName().toString();
        if (!name.endsWith(suffix) || name.length() != FILE_NAME_DIGITS + suffix.length()) {
            return -1;
        }
        for (int i = 0; i < FILE_NAME_DIGITS; i++) {
            if (!Character.isDigit(name.charAt(i))) {
                return -1;
            }
        }
        try {
            return Long.parseLong(name.substring(0, FILE_NAME_DIGITS));
        } catch (NumberFormatException ignored) {
            return -1;
        }
    }
}
