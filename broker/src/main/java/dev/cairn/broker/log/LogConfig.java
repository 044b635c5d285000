package dev.cairn.broker.log;

/**
 * Tunables of one partition's log, with Kafka's names and defaults. Hard limits live in
 * {@link SegmentDescriptor}; {@link #validate()} checks these values against them and each other.
 *
 * @param segmentBytes          {@code segment.bytes}: roll when the active segment would grow past this
 * @param segmentMs             {@code segment.ms}: roll when the first batch of the active segment is older
 * @param indexIntervalBytes    {@code index.interval.bytes}: log bytes between two sparse index entries
 * @param segmentIndexBytes     {@code segment.index.bytes}: largest offset index file; roll when full
 * @param retentionMs           {@code retention.ms}: delete segments whose newest batch is older; -1 keeps all
 * @param retentionBytes        {@code retention.bytes}: delete oldest segments while the log is larger; -1 keeps all
 * @param flushIntervalMessages {@code flush.messages}: fsync after this many offsets were appended unflushed
 * @param flushIntervalMs       {@code flush.ms}: fsync once data has been seen unflushed this long by
 *                              {@link Log#maybeFlush(long)} (time comes only from the caller's ticks)
 */
public record LogConfig(int segmentBytes, long segmentMs, int indexIntervalBytes, int segmentIndexBytes,
        long retentionMs, long retentionBytes, long flushIntervalMessages, long flushIntervalMs) {

    public static final int SEGMENT_BYTES_DEFAULT = 1 << 30;
    public static final long SEGMENT_MS_DEFAULT = 7L * 24 * 60 * 60 * 1000;
    public static final int INDEX_INTERVAL_BYTES_DEFAULT = 4096;
    public static final int SEGMENT_INDEX_BYTES_DEFAULT = 10 << 20;
    public static final long RETENTION_MS_DEFAULT = 7L * 24 * 60 * 60 * 1000;
    public static final long RETENTION_BYTES_DEFAULT = -1;
    public static final long FLUSH_INTERVAL_MESSAGES_DEFAULT = Long.MAX_VALUE;
    public static final long FLUSH_INTERVAL_MS_DEFAULT = Long.MAX_VALUE;
    /** Retention value meaning "keep forever". */
    public static final long RETENTION_UNLIMITED = -1;

    /** Kafka's defaults. */
    public static LogConfig defaults() {
        return new LogConfig(SEGMENT_BYTES_DEFAULT, SEGMENT_MS_DEFAULT, INDEX_INTERVAL_BYTES_DEFAULT,
                SEGMENT_INDEX_BYTES_DEFAULT, RETENTION_MS_DEFAULT, RETENTION_BYTES_DEFAULT,
                FLUSH_INTERVAL_MESSAGES_DEFAULT, FLUSH_INTERVAL_MS_DEFAULT);
    }

    /**
     * This config with a topic's overrides applied, by Kafka's topic config names: {@code segment.bytes},
     * {@code segment.ms}, {@code retention.ms}, {@code retention.bytes}. Other names are not log settings and
     * are ignored here. Values were validated when the topic was created.
     */
    public LogConfig withTopicOverrides(java.util.Map<String, String> overrides) {
        LogConfig config = this;
        String segmentBytes = overrides.get("segment.bytes");
        if (segmentBytes != null) {
            config = config.withSegmentBytes(Math.toIntExact(Long.parseLong(segmentBytes.trim())));
        }
        String segmentMs = overrides.get("segment.ms");
        if (segmentMs != null) {
            config = config.withSegmentMs(Long.parseLong(segmentMs.trim()));
        }
        String retentionMs = overrides.get("retention.ms");
        String retentionBytes = overrides.get("retention.bytes");
        String cleanupPolicy = overrides.get("cleanup.policy");
        if (cleanupPolicy != null && !java.util.Arrays.stream(cleanupPolicy.split(",")).map(String::trim)
                .toList().contains("delete")) {
            // A compact-only topic is never trimmed by time or size, whatever the retention settings say.
            config = config.withRetention(RETENTION_UNLIMITED, RETENTION_UNLIMITED);
        } else if (retentionMs != null || retentionBytes != null) {
            long ms = retentionMs == null ? config.retentionMs() : Long.parseLong(retentionMs.trim());
            long bytes = retentionBytes == null ? config.retentionBytes() : Long.parseLong(retentionBytes.trim());
            config = config.withRetention(ms, bytes);
        }
        return config.validate();
    }

    public LogConfig withSegmentBytes(int value) {
        return new LogConfig(value, segmentMs, indexIntervalBytes, segmentIndexBytes, retentionMs, retentionBytes,
                flushIntervalMessages, flushIntervalMs);
    }

    public LogConfig withSegmentMs(long value) {
        return new LogConfig(segmentBytes, value, indexIntervalBytes, segmentIndexBytes, retentionMs,
                retentionBytes, flushIntervalMessages, flushIntervalMs);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, value, segmentIndexBytes, retentionMs, retentionBytes,
                flushIntervalMessages, flushIntervalMs);
    }

    public LogConfig withSegmentIndexBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, indexIntervalBytes, value, retentionMs, retentionBytes,
                flushIntervalMessages, flushIntervalMs);
    }

    public LogConfig withRetention(long ms, long bytes) {
        return new LogConfig(segmentBytes, segmentMs, indexIntervalBytes, segmentIndexBytes, ms, bytes,
                flushIntervalMessages, flushIntervalMs);
    }

    public LogConfig withFlushInterval(long messages, long ms) {
        return new LogConfig(segmentBytes, segmentMs, indexIntervalBytes, segmentIndexBytes, retentionMs,
                retentionBytes, messages, ms);
    }

    /** The number of entries the offset index may hold before the segment must roll. */
    public int offsetIndexEntriesMax() {
        return segmentIndexBytes / SegmentDescriptor.OFFSET_INDEX_ENTRY_BYTES;
    }

    /** Fails with a message naming the offending values. */
    public LogConfig validate() {
        require(segmentBytes >= SegmentDescriptor.SEGMENT_BYTES_MIN, "segment.bytes %d below minimum %d",
                segmentBytes, SegmentDescriptor.SEGMENT_BYTES_MIN);
        require(segmentBytes <= SegmentDescriptor.SEGMENT_BYTES_MAX, "segment.bytes %d above maximum %d",
                segmentBytes, SegmentDescriptor.SEGMENT_BYTES_MAX);
        require(segmentMs > 0, "segment.ms %d must be positive", segmentMs);
        require(indexIntervalBytes >= 0, "index.interval.bytes %d must not be negative", indexIntervalBytes);
        require(segmentIndexBytes >= SegmentDescriptor.OFFSET_INDEX_ENTRY_BYTES,
                "segment.index.bytes %d below one index entry of %d bytes", segmentIndexBytes,
                SegmentDescriptor.OFFSET_INDEX_ENTRY_BYTES);
        require(retentionMs == RETENTION_UNLIMITED || retentionMs >= 0,
                "retention.ms %d must be -1 (unlimited) or at least 0", retentionMs);
        require(retentionBytes == RETENTION_UNLIMITED || retentionBytes >= 0,
                "retention.bytes %d must be -1 (unlimited) or at least 0", retentionBytes);
        require(flushIntervalMessages >= 1, "flush.messages %d must be at least 1", flushIntervalMessages);
        require(flushIntervalMs >= 0, "flush.ms %d must not be negative", flushIntervalMs);
        return this;
    }

    private static void require(boolean condition, String format, long a) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, a));
        }
    }

    private static void require(boolean condition, String format, long a, long b) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, a, b));
        }
    }
}
