package dev.cairn.broker.cluster;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigKey;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The broker settings Cairn changes at run time, cluster-wide ({@code kafka-configs --entity-type brokers
 * --entity-default}): the log defaults a topic without its own value follows. They are set for the whole cluster only,
 * not per broker, since every replica of a partition must roll and delete its segments at the same log positions; the
 * partition leaders carry a change into each partition's log as a replicated Reconfigure command, like a topic config
 * change. Every other broker setting comes from the broker's configuration file.
 */
public final class BrokerDefaults {
    /** The broker keys that change at run time, each with the topic config it is the default of. */
    public static final Map<ConfigKey<?>, String> TOPIC_CONFIG_BY_KEY = Map.of(
            BrokerConfig.LOG_RETENTION_MS, "retention.ms",
            BrokerConfig.LOG_RETENTION_BYTES, "retention.bytes",
            BrokerConfig.LOG_SEGMENT_BYTES, "segment.bytes",
            BrokerConfig.LOG_SEGMENT_MS, "segment.ms");

    private BrokerDefaults() {
    }

    /** The broker keys that change at run time, by name. */
    public static List<String> names() {
        return TOPIC_CONFIG_BY_KEY.keySet().stream().map(ConfigKey::name).sorted().toList();
    }

    /**
     * The configs a partition's log follows: the cluster's dynamic defaults under their topic names, with the topic's
     * own values over them.
     */
    public static Map<String, String> effectiveTopicConfigs(MetadataImage image, TopicInfo topic) {
        if (image.brokerDefaults().isEmpty()) {
            return topic.configs();
        }
        Map<String, String> effective = new TreeMap<>();
        TOPIC_CONFIG_BY_KEY.forEach((key, topicName) -> {
            String value = image.brokerDefaults().get(key.name());
            if (value != null) {
                effective.put(topicName, value);
            }
        });
        effective.putAll(topic.configs());
        return Map.copyOf(effective);
    }
}
