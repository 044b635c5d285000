package dev.cairn.client;

import java.util.Map;
import java.util.Objects;

/**
 * A topic to create; -1 partitions or replication factor means the broker's default.
 *
 * @param name the topic name
 * @param partitions the partition count, or -1
 * @param replicationFactor the replication factor, or -1
 * @param configs topic configs by Kafka key name
 */
public record NewTopic(String name, int partitions, short replicationFactor, Map<String, String> configs) {
    public NewTopic {
        Objects.requireNonNull(name, "name");
        configs = configs == null ? Map.of() : Map.copyOf(configs);
    }

    public NewTopic(String name, int partitions, int replicationFactor) {
        this(name, partitions, (short) replicationFactor, Map.of());
    }
}
