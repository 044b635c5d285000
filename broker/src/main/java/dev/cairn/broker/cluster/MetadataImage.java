package dev.cairn.broker.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * An immutable view of cluster metadata at one applied Raft index. Request handlers read the latest image
 * without locks; the metadata state machine publishes a new one after each change. {@code clusterId} is the one
 * id every broker of the cluster reports, the first one proposed (null until a broker has proposed one).
 */
public record MetadataImage(long appliedRaftIndex, SortedMap<Integer, BrokerInfo> brokers,
        SortedMap<String, TopicInfo> topics, long nextProducerId, Map<TopicPartition, PartitionState> partitionStates,
        java.util.Set<Integer> deadBrokers, String clusterId, ScramCredentials scramCredentials, AclStore acls,
        Map<TopicPartition, PartitionReassignment> reassignments, Map<String, String> brokerDefaults) {

    public static final MetadataImage EMPTY = new MetadataImage(0, new TreeMap<>(), new TreeMap<>(), 0, Map.of(),
            java.util.Set.of(), null);

    /** An image without SCRAM credentials or ACLs. */
    public MetadataImage(long appliedRaftIndex, SortedMap<Integer, BrokerInfo> brokers,
            SortedMap<String, TopicInfo> topics, long nextProducerId,
            Map<TopicPartition, PartitionState> partitionStates, java.util.Set<Integer> deadBrokers, String clusterId) {
        this(appliedRaftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers, clusterId,
                ScramCredentials.EMPTY, AclStore.EMPTY, Map.of(), Map.of());
    }

    public MetadataImage {
        brokers = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        topics = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        partitionStates = Map.copyOf(partitionStates);
        deadBrokers = java.util.Set.copyOf(deadBrokers);
        reassignments = Map.copyOf(reassignments);
        brokerDefaults = Map.copyOf(brokerDefaults);
    }

    /** The reassignment in progress for a partition, if any (AlterPartitionReassignments). */
    public Optional<PartitionReassignment> reassignment(TopicPartition partition) {
        return Optional.ofNullable(reassignments.get(partition));
    }

    /**
     * Registered brokers the metadata leader currently hears from: group coordinators are chosen among these, so
     * a dead broker's groups move to a live one.
     */
    public SortedMap<Integer, BrokerInfo> liveBrokers() {
        if (deadBrokers.isEmpty()) {
            return brokers;
        }
        SortedMap<Integer, BrokerInfo> live = new TreeMap<>(brokers);
        live.keySet().removeAll(deadBrokers);
        return java.util.Collections.unmodifiableSortedMap(live);
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
            long newNextProducerId, Map<TopicPartition, PartitionState> newStates, java.util.Set<Integer> newDead) {
        return new MetadataImage(raftIndex, new TreeMap<>(newBrokers), new TreeMap<>(newTopics), newNextProducerId,
                newStates, newDead, clusterId, scramCredentials, acls, reassignmentsOf(newTopics), brokerDefaults);
    }

    /** This image's reassignments of partitions that {@code newTopics} still holds (a deleted topic's end). */
    private Map<TopicPartition, PartitionReassignment> reassignmentsOf(Map<String, TopicInfo> newTopics) {
        if (reassignments.isEmpty()) {
            return reassignments;
        }
        Map<TopicPartition, PartitionReassignment> kept = new java.util.HashMap<>(reassignments);
        kept.keySet().removeIf(tp -> !newTopics.containsKey(tp.topic())
                || tp.partition() >= newTopics.get(tp.topic()).partitionCount());
        return kept;
    }

    MetadataImage withClusterId(long raftIndex, String newClusterId) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                newClusterId, scramCredentials, acls, reassignments, brokerDefaults);
    }

    MetadataImage withScramCredentials(long raftIndex, ScramCredentials credentials) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                clusterId, credentials, acls, reassignments, brokerDefaults);
    }

    MetadataImage withAcls(long raftIndex, AclStore newAcls) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                clusterId, scramCredentials, newAcls, reassignments, brokerDefaults);
    }

    /**
     * The image with these cluster-wide dynamic broker defaults (IncrementalAlterConfigs on the default BROKER
     * resource, {@code kafka-configs --entity-default}).
     */
    MetadataImage withBrokerDefaults(long raftIndex, Map<String, String> newDefaults) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers, clusterId,
                scramCredentials, acls, reassignments, newDefaults);
    }

    MetadataImage withReassignments(long raftIndex, Map<String, TopicInfo> newTopics,
            Map<TopicPartition, PartitionReassignment> newReassignments) {
        return new MetadataImage(raftIndex, brokers, new TreeMap<>(newTopics), nextProducerId, partitionStates,
                deadBrokers, clusterId, scramCredentials, acls, newReassignments, brokerDefaults);
    }
}
