package dev.cairn.broker.api;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigKey;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.log.CompactionConfig;
import dev.cairn.protocol.record.compression.CompressionType;
import java.util.List;
import java.util.Optional;

/**
 * The topic-level configs CreateTopics accepts, with Kafka's names and value rules for the ones Cairn can honour.
 * Anything else is refused, as Kafka refuses unknown names ("Unknown topic config name"), rather than stored and
 * silently ignored.
 *
 * <p>Compacted topics ({@code cleanup.policy=compact} or {@code compact,delete}) have Kafka's semantics: every record
 * needs a key (INVALID_RECORD otherwise), a compact-only topic is never trimmed by time or size, and partition leaders
 * run compaction passes through the partitions' Raft groups ({@code log.LogCleaner}, docs/storage.md) as the
 * cleaner's settings ({@code delete.retention.ms}, {@code min.cleanable.dirty.ratio}, {@code min.compaction.lag.ms},
 * {@code max.compaction.lag.ms}) say.
 */
final class TopicConfigs {
    static final String RETENTION_MS = "retention.ms";
    static final String RETENTION_BYTES = "retention.bytes";
    static final String SEGMENT_BYTES = "segment.bytes";
    static final String SEGMENT_MS = "segment.ms";
    static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    static final String CLEANUP_POLICY = "cleanup.policy";
    static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    static final String COMPRESSION_TYPE = "compression.type";
    static final String DELETE_RETENTION_MS = CompactionConfig.DELETE_RETENTION_MS;
    static final String MIN_CLEANABLE_DIRTY_RATIO = CompactionConfig.MIN_CLEANABLE_DIRTY_RATIO;
    static final String MIN_COMPACTION_LAG_MS = CompactionConfig.MIN_COMPACTION_LAG_MS;
    static final String MAX_COMPACTION_LAG_MS = CompactionConfig.MAX_COMPACTION_LAG_MS;
    /** Delete old segments by retention time and size. */
    static final String CLEANUP_POLICY_DELETE = "delete";
    /** Keep the latest record per key (log compaction). */
    static final String CLEANUP_POLICY_COMPACT = "compact";
    /** Records keep the producer's timestamps. */
    static final String TIMESTAMP_TYPE_CREATE_TIME = "CreateTime";
    /** The leader stamps each batch with the time it accepted it (every record reads it as its timestamp). */
    static final String TIMESTAMP_TYPE_LOG_APPEND_TIME = "LogAppendTime";
    /** Keep each batch as the producer compressed it. */
    static final String COMPRESSION_TYPE_PRODUCER = "producer";
    /** Kafka's topic compression.type values besides "producer", and the codec each names. */
    static final java.util.Map<String, CompressionType> COMPRESSION_TYPES = java.util.Map.of(
            "uncompressed", CompressionType.NONE, "gzip", CompressionType.GZIP, "snappy", CompressionType.SNAPPY,
            "lz4", CompressionType.LZ4, "zstd", CompressionType.ZSTD);
    /** Every accepted name, for error messages. */
    static final List<String> NAMES = List.of(CLEANUP_POLICY, COMPRESSION_TYPE, DELETE_RETENTION_MS,
            MAX_COMPACTION_LAG_MS, MAX_MESSAGE_BYTES, MESSAGE_TIMESTAMP_TYPE, MIN_CLEANABLE_DIRTY_RATIO,
            MIN_COMPACTION_LAG_MS, RETENTION_BYTES, RETENTION_MS, SEGMENT_BYTES, SEGMENT_MS);
    /**
     * What DescribeConfigs reports for each accepted name, in {@link #NAMES} order: the type Kafka gives the
     * config, and the broker setting a topic without its own value inherits. Cairn has no broker keys for the cleanup
     * policy and the timestamp type, so those inherit a fixed default under Kafka's broker name.
     */
    static final List<Description> DESCRIPTIONS = List.of(
            Description.fixed(CLEANUP_POLICY, ConfigType.LIST, "log.cleanup.policy", CLEANUP_POLICY_DELETE,
                    "delete trims old segments by retention; compact requires keys and keeps the latest record of "
                    + "each key (log compaction)."),
            Description.fixed(COMPRESSION_TYPE, ConfigType.STRING, "compression.type", COMPRESSION_TYPE_PRODUCER,
                    "The codec batches are stored with; producer keeps the producer's, any other is recompressed to."),
            Description.fixed(DELETE_RETENTION_MS, ConfigType.LONG, "log.cleaner.delete.retention.ms",
                    Long.toString(CompactionConfig.DELETE_RETENTION_MS_DEFAULT), "How long compaction keeps a "
                    + "tombstone (a record with a null value), counted from its timestamp."),
            Description.fixed(MAX_COMPACTION_LAG_MS, ConfigType.LONG, "log.cleaner.max.compaction.lag.ms",
                    Long.toString(CompactionConfig.MAX_COMPACTION_LAG_MS_DEFAULT), "A segment older than this is "
                    + "compacted whatever the dirty ratio."),
            Description.inherited(MAX_MESSAGE_BYTES, ConfigType.INT, BrokerConfig.MESSAGE_MAX_BYTES,
                    "Largest record batch a producer may append to this topic."),
            Description.fixed(MESSAGE_TIMESTAMP_TYPE, ConfigType.STRING, "log.message.timestamp.type",
                    TIMESTAMP_TYPE_CREATE_TIME, "CreateTime keeps the producer's timestamps; LogAppendTime stamps "
                    + "the time the leader accepted each batch."),
            Description.fixed(MIN_CLEANABLE_DIRTY_RATIO, ConfigType.DOUBLE, "log.cleaner.min.cleanable.ratio",
                    Double.toString(CompactionConfig.MIN_CLEANABLE_DIRTY_RATIO_DEFAULT), "Compact once the "
                    + "uncompacted share of the inactive segments reaches this."),
            Description.fixed(MIN_COMPACTION_LAG_MS, ConfigType.LONG, "log.cleaner.min.compaction.lag.ms",
                    Long.toString(CompactionConfig.MIN_COMPACTION_LAG_MS_DEFAULT), "Segments with records newer "
                    + "than this are not compacted yet."),
            Description.inherited(RETENTION_BYTES, ConfigType.LONG, BrokerConfig.LOG_RETENTION_BYTES,
                    "Delete the oldest segments while a partition is larger than this; -1 is unlimited."),
            Description.inherited(RETENTION_MS, ConfigType.LONG, BrokerConfig.LOG_RETENTION_MS,
                    "Delete segments whose newest record is older than this; -1 keeps them forever."),
            Description.inherited(SEGMENT_BYTES, ConfigType.INT, BrokerConfig.LOG_SEGMENT_BYTES,
                    "Roll a partition's segment when it reaches this size."),
            Description.inherited(SEGMENT_MS, ConfigType.LONG, BrokerConfig.LOG_SEGMENT_MS,
                    "Roll a partition's segment when its first record is this old."));
    /** -1 means "no limit" for the retention configs, as in Kafka. */
    private static final long UNLIMITED = -1;
    private static final long SEGMENT_MS_MIN = 1;

    private TopicConfigs() {
    }

    /**
     * A topic config as DescribeConfigs describes it. A topic without its own value inherits {@code brokerKey}'s
     * value, or, when {@code brokerKey} is null, {@code fixedDefault}, which Kafka names {@code brokerName}.
     */
    record Description(String name, ConfigType type, String brokerName, ConfigKey<?> brokerKey, String fixedDefault,
            String doc) {
        static Description inherited(String name, ConfigType type, ConfigKey<?> brokerKey, String doc) {
            return new Description(name, type, brokerKey.name(), brokerKey, null, doc);
        }

        static Description fixed(String name, ConfigType type, String brokerName, String value, String doc) {
            return new Description(name, type, brokerName, null, value, doc);
        }
    }

    /** Whether a config is a list (IncrementalAlterConfigs may append to it and subtract from it). */
    static boolean isList(String name) {
        return DESCRIPTIONS.stream().anyMatch(d -> d.name().equals(name) && d.type() == ConfigType.LIST);
    }

    /**
     * The topic's own value of a config, or the fixed default it inherits otherwise (empty for a config that
     * inherits a broker key: IncrementalAlterConfigs needs the current value of list configs only, and those have
     * fixed defaults).
     */
    static String currentValue(dev.cairn.broker.cluster.TopicInfo topic, String name) {
        String own = topic.configs().get(name);
        if (own != null) {
            return own;
        }
        return DESCRIPTIONS.stream().filter(d -> d.name().equals(name) && d.fixedDefault() != null)
                .map(Description::fixedDefault).findFirst().orElse("");
    }

    /** The codec a topic's batches are stored with, or null to keep the producer's. */
    static CompressionType storedCompression(java.util.Map<String, String> configs) {
        return COMPRESSION_TYPES.get(configs.getOrDefault(COMPRESSION_TYPE, COMPRESSION_TYPE_PRODUCER));
    }

    /** Whether a topic's records take the leader's append time as their timestamp. */
    static boolean logAppendTime(java.util.Map<String, String> configs) {
        return TIMESTAMP_TYPE_LOG_APPEND_TIME.equals(configs.get(MESSAGE_TIMESTAMP_TYPE));
    }

    /** Whether the topic is compacted ({@code compact} among its cleanup policies): its records need keys. */
    static boolean compacted(java.util.Map<String, String> configs) {
        String policy = configs.get(CLEANUP_POLICY);
        return policy != null && cleanupPolicies(policy).map(p -> p.contains(CLEANUP_POLICY_COMPACT)).orElse(false);
    }

    /** The policies of a {@code cleanup.policy} list, or empty when it is not a valid one. */
    private static Optional<java.util.Set<String>> cleanupPolicies(String value) {
        java.util.Set<String> policies = new java.util.HashSet<>();
        for (String item : value.split(",", -1)) {
            String policy = item.trim();
            if (!(CLEANUP_POLICY_DELETE.equals(policy) || CLEANUP_POLICY_COMPACT.equals(policy))
                    || !policies.add(policy)) {
                return Optional.empty();
            }
        }
        return Optional.of(policies);
    }

    /** Why {@code name=value} is not an acceptable topic config, or empty when it is. */
    static Optional<String> invalidReason(String name, String value) {
        if (value == null) {
            return Optional.of("null value not supported for topic config " + name);
        }
        switch (name) {
            case RETENTION_MS:
            case RETENTION_BYTES:
                return longInRange(name, value, UNLIMITED, Long.MAX_VALUE);
            case SEGMENT_BYTES:
                return longInRange(name, value, Limits.SEGMENT_BYTES_MIN, Limits.SEGMENT_BYTES_MAX);
            case SEGMENT_MS:
                return longInRange(name, value, SEGMENT_MS_MIN, Long.MAX_VALUE);
            case MAX_MESSAGE_BYTES:
                return longInRange(name, value, 0, Limits.RECORD_BATCH_BYTES_MAX);
            case CLEANUP_POLICY:
                return cleanupPolicies(value).isPresent() ? Optional.empty() : Optional.of("Invalid value " + value
                        + " for configuration " + name + ": a list of " + CLEANUP_POLICY_DELETE + " and "
                        + CLEANUP_POLICY_COMPACT + ", each at most once");
            case DELETE_RETENTION_MS:
            case MIN_COMPACTION_LAG_MS:
                return longInRange(name, value, 0, Long.MAX_VALUE);
            case MAX_COMPACTION_LAG_MS:
                return longInRange(name, value, 1, Long.MAX_VALUE);
            case MIN_CLEANABLE_DIRTY_RATIO:
                return ratio(name, value);
            case MESSAGE_TIMESTAMP_TYPE:
                return TIMESTAMP_TYPE_CREATE_TIME.equals(value) || TIMESTAMP_TYPE_LOG_APPEND_TIME.equals(value)
                        ? Optional.empty() : Optional.of("Invalid value " + value + " for configuration " + name
                        + ": String must be one of: " + TIMESTAMP_TYPE_CREATE_TIME + ", "
                        + TIMESTAMP_TYPE_LOG_APPEND_TIME);
            case COMPRESSION_TYPE:
                return COMPRESSION_TYPE_PRODUCER.equals(value) || COMPRESSION_TYPES.containsKey(value)
                        ? Optional.empty() : Optional.of("Invalid value " + value + " for configuration " + name
                        + ": String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer");
            case "flush.messages":
            case "flush.ms":
                // Accepting them would promise per-topic durability the Raft log does not give: an entry is durable
                // when the Raft log is fsynced, which is decided per broker.
                return Optional.of(name + " is set per broker in Cairn, not per topic: set log.flush.interval."
                        + (name.equals("flush.ms") ? "ms" : "messages") + " on every broker (see Durability in the "
                        + "README: log.flush.interval.messages=1 answers only after a majority fsynced the write)");
            default:
                return Optional.of("Unknown topic config name: " + name + " (Cairn accepts "
                        + String.join(", ", NAMES) + ")");
        }
    }

    private static Optional<String> ratio(String name, String value) {
        double parsed;
        try {
            parsed = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            return Optional.of(name + "=" + value + " is not a number");
        }
        return parsed >= 0 && parsed <= 1 ? Optional.empty() : Optional.of(name + "=" + value + " is outside [0, 1]");
    }

    private static Optional<String> longInRange(String name, String value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return Optional.of(name + "=" + value + " is not a whole number");
        }
        if (parsed < min || parsed > max) {
            return Optional.of(name + "=" + value + " is outside [" + min + ", " + max + "]");
        }
        return Optional.empty();
    }
}
