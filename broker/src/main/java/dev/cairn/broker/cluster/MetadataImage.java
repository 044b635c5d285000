package dev.cairn.broker.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * An immutable view of cluster metadata at one applied Raft index. Request handlers read the latest image
 * without locks; the metadata state machine publishes a new one after each change.
 */
public record MetadataImage(long appliedRaftIndex, SortedMap<Integer, BrokerInfo> brokers,
        SortedMap<String, TopicInfo> topics, long nextProducerId, Map<TopicPartition, PartitionState> partitionStates) {

    public static final MetadataImage EMPTY = new MetadataImage(0, new TreeMap<>(), new TreeMap<>(), 0, Map.of());

    public MetadataImage {
        brokers = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        topics = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        partitionStates = Map.copyOf(partitionStates);
    }

    /** The last published state of a partition's leadership, if any. */
    public Optional<PartitionState> partitionState(TopicPartition partition) {
        return Optional.ofNullable(partitionStates.get(partition));
    }

    public Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    public Optional<TopicInfo> topicById(UUID topicId) {
        for (TopicInfo topic : topics.values()) {
            if (topic.topicId().equals(topicId)) {
                return Optional.of(topic);
            }
        }
        return Optional.empty();
    }

    MetadataImage with(long raftIndex, Map<Integer, BrokerInfo> newBrokers, Map<String, TopicInfo> newTopics,
            long newNextProducerId, Map<TopicPartition, PartitionState> newStates) {
        return new MetadataImage(raftIndex, new TreeMap<>(newBrokers), new TreeMap<>(newTopics), newNextProducerId,
                newStates);
    }
}
