package dev.cairn.protocol.record;

/**
 * The per-topic settings a produce batch is validated against, with Kafka's defaults as named constants.
 *
 * @param messageBytesMax the largest batch accepted, Kafka's {@code max.message.bytes} (MESSAGE_TOO_LARGE)
 * @param segmentBytes the segment size, Kafka's {@code segment.bytes}; a larger batch gets RECORD_LIST_TOO_LARGE
 * @param timestampBeforeMaxMs how far a CreateTime timestamp may lie behind {@code nowMs}
 *     ({@code message.timestamp.before.max.ms})
 * @param timestampAfterMaxMs how far a CreateTime timestamp may lie ahead of {@code nowMs}
 *     ({@code message.timestamp.after.max.ms})
 * @param logAppendTime true for a topic with {@code message.timestamp.type=LogAppendTime}, where record
 *     timestamps are not checked against the window (the broker stamps them)
 * @param keyRequired true for a compacted topic, where every record needs a key
 * @param decompressedBytesMax how many bytes a compressed batch may inflate to before it is refused
 */
public record BatchValidationConfig(int messageBytesMax, long segmentBytes, long timestampBeforeMaxMs,
                                    long timestampAfterMaxMs, boolean logAppendTime, boolean keyRequired,
                                    int decompressedBytesMax) {
    /** Kafka's {@code message.max.bytes} default: 1 MiB of records plus the 12-byte log overhead. */
    public static final int DEFAULT_MESSAGE_BYTES_MAX = 1024 * 1024 + RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
    /** Kafka's {@code segment.bytes} default, 1 GiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 1024L * 1024 * 1024;
    /** Kafka's {@code message.timestamp.before.max.ms} default: no limit on how old a timestamp may be. */
    public static final long DEFAULT_TIMESTAMP_BEFORE_MAX_MS = Long.MAX_VALUE;
    /** Kafka 4's {@code message.timestamp.after.max.ms} default (KIP-1030): one hour into the future. */
    public static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 60L * 60 * 1000;
    /**
     * How many times its wire size a batch may inflate to. Text and JSON payloads compress about 5 to 10 times
     * with gzip or zstd, so 16 leaves honest batches alone while capping a zip bomb at 16 MiB per batch.
     */
    public static final int DECOMPRESSION_RATIO_MAX = 16;
    /** The default inflated-size limit: {@link #DECOMPRESSION_RATIO_MAX} times the default message size. */
    public static final int DEFAULT_DECOMPRESSED_BYTES_MAX = DECOMPRESSION_RATIO_MAX * DEFAULT_MESSAGE_BYTES_MAX;

    /** Kafka's defaults for a CreateTime, non-compacted topic. */
    public static final BatchValidationConfig DEFAULTS = new BatchValidationConfig(DEFAULT_MESSAGE_BYTES_MAX,
            DEFAULT_SEGMENT_BYTES, DEFAULT_TIMESTAMP_BEFORE_MAX_MS, DEFAULT_TIMESTAMP_AFTER_MAX_MS, false, false,
            DEFAULT_DECOMPRESSED_BYTES_MAX);

    static {
        // The inflation limit is a multiple of the wire limit and must fit in one Java array.
        if ((long) DECOMPRESSION_RATIO_MAX * DEFAULT_MESSAGE_BYTES_MAX > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("DEFAULT_DECOMPRESSED_BYTES_MAX overflows an array");
        }
    }

    public BatchValidationConfig {
        if (messageBytesMax < RecordBatchDescriptor.HEADER_BYTES) {
            throw new IllegalArgumentException("messageBytesMax " + messageBytesMax + " < batch header bytes "
                    + RecordBatchDescriptor.HEADER_BYTES);
        }
        if (segmentBytes < RecordBatchDescriptor.HEADER_BYTES) {
            throw new IllegalArgumentException("segmentBytes " + segmentBytes + " < batch header bytes "
                    + RecordBatchDescriptor.HEADER_BYTES);
        }
        if (timestampBeforeMaxMs < 0 || timestampAfterMaxMs < 0) {
            throw new IllegalArgumentException("timestampBeforeMaxMs " + timestampBeforeMaxMs
                    + " and timestampAfterMaxMs " + timestampAfterMaxMs + " must be >= 0");
        }
        if (decompressedBytesMax < 0) {
            throw new IllegalArgumentException("decompressedBytesMax " + decompressedBytesMax + " < 0");
        }
    }

    /** The same settings for a topic whose timestamps are the broker's append time (or not). */
    public BatchValidationConfig withLogAppendTime(boolean appendTime) {
        return new BatchValidationConfig(messageBytesMax, segmentBytes, timestampBeforeMaxMs, timestampAfterMaxMs,
                appendTime, keyRequired, decompressedBytesMax);
    }

    /** The same settings for a compacted topic, where every record needs a key (or not). */
    public BatchValidationConfig withKeyRequired(boolean required) {
        return new BatchValidationConfig(messageBytesMax, segmentBytes, timestampBeforeMaxMs, timestampAfterMaxMs,
                logAppendTime, required, decompressedBytesMax);
    }

    /** The same settings with another message size limit and the inflation limit scaled with it. */
    public BatchValidationConfig withMessageBytesMax(int bytesMax) {
        long inflatedMax = Math.min((long) DECOMPRESSION_RATIO_MAX * bytesMax, Integer.MAX_VALUE - 8);
        return new BatchValidationConfig(bytesMax, segmentBytes, timestampBeforeMaxMs, timestampAfterMaxMs,
                logAppendTime, keyRequired, (int) inflatedMax);
    }
}
