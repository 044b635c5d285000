package dev.cairn.broker.metrics;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * This broker's share of the cluster at one metadata image: the partitions it hosts a replica of, those it leads
 * (by its own Raft role), and of those the under-replicated ones (in-sync replicas fewer than replicas, as last
 * published by the leader), as Kafka counts them.
 */
public record ReplicaCounts(int partitions, int leaders, int underReplicated) {

    public static ReplicaCounts of(MetadataImage image, int nodeId, Predicate<TopicPartition> leadsLocally) {
        int partitions = 0;
        int leaders = 0;
        int underReplicated = 0;
        for (TopicInfo topic : image.topics().values()) {
            List<List<Integer>> replicas = topic.replicas();
            for (int p = 0; p < replicas.size(); p++) {
                if (!replicas.get(p).contains(nodeId)) {
                    continue;
                }
                partitions++;
                TopicPartition tp = new TopicPartition(topic.name(), p);
                if (!leadsLocally.test(tp)) {
                    continue;
                }
                leaders++;
                Optional<PartitionState> state = image.partitionState(tp);
                if (state.isPresent() && state.get().isr().size() < replicas.get(p).size()) {
                    underReplicated++;
                }
            }
        }
        return new ReplicaCounts(partitions, leaders, underReplicated);
    }
}
