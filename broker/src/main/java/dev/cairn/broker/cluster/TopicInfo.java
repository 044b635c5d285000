package dev.cairn.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A topic as the metadata group knows it. {@code replicas.get(p)} lists partition p's replica node ids, the
 * first being the preferred leader. Configs are topic-level overrides (for example {@code retention.ms}).
 */
public record TopicInfo(String name, UUID topicId, List<List<Integer>> replicas, Map<String, String> configs) {

    public TopicInfo {
        replicas = replicas.stream().map(List::copyOf).toList();
        configs = Map.copyOf(configs);
    }

    public int partitionCount() {
        return replicas.size();
    }

    public int replicationFactor() {
        return replicas.isEmpty() ? 0 : replicas.get(0).size();
    }
}
