package dev.cairn.broker.log;

import java.util.Arrays;
import java.util.Map;

/**
 * A topic's compaction settings, by Kafka's topic config names and with Kafka's defaults: whether the topic is
 * compacted at all ({@code cleanup.policy} includes {@code compact}), how long tombstones stay
 * ({@code delete.retention.ms}), which share of dirty bytes makes a log worth cleaning
 * ({@code min.cleanable.dirty.ratio}), and how long a record stays uncompacted at least and at most
 * ({@code min.compaction.lag.ms}, {@code max.compaction.lag.ms}). Values were validated when they were set.
 */
public record CompactionConfig(boolean compacted, long deleteRetentionMs, double minCleanableDirtyRatio,
        long minCompactionLagMs, long maxCompactionLagMs) {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final long DELETE_RETENTION_MS_DEFAULT = 24L * 60 * 60 * 1000;
    public static final double MIN_CLEANABLE_DIRTY_RATIO_DEFAULT = 0.5;
    public static final long MIN_COMPACTION_LAG_MS_DEFAULT = 0;
    public static final long MAX_COMPACTION_LAG_MS_DEFAULT = Long.MAX_VALUE;

    /** The settings a topic's configs give, defaults for those it does not set. */
    public static CompactionConfig of(Map<String, String> topicConfigs) {
        String policy = topicConfigs.get(CLEANUP_POLICY);
        boolean compacted = policy != null
                && Arrays.stream(policy.split(",")).map(String::trim).anyMatch("compact"::equals);
        return new CompactionConfig(compacted,
                longValue(topicConfigs, DELETE_RETENTION_MS, DELETE_RETENTION_MS_DEFAULT),
                topicConfigs.containsKey(MIN_CLEANABLE_DIRTY_RATIO)
                        ? Double.parseDouble(topicConfigs.get(MIN_CLEANABLE_DIRTY_RATIO).trim())
                        : MIN_CLEANABLE_DIRTY_RATIO_DEFAULT,
                longValue(topicConfigs, MIN_COMPACTION_LAG_MS, MIN_COMPACTION_LAG_MS_DEFAULT),
                longValue(topicConfigs, MAX_COMPACTION_LAG_MS, MAX_COMPACTION_LAG_MS_DEFAULT));
    }

    private static long longValue(Map<String, String> configs, String name, long fallback) {
        String value = configs.get(name);
        return value == null ? fallback : Long.parseLong(value.trim());
    }
}
