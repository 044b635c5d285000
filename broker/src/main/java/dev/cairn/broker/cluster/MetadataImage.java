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
 *
 * <p>{@code nextRaftGroupId} is the Raft group id the next created partition gets on Cairn's own engine
 * ({@link TopicInfo#raftGroup(int)}). Ids run densely from {@link #RAFT_GROUP_ID_MIN} in apply order and are never
 * reused, also not after a topic is deleted, so a broker that missed the deletion never mistakes a new partition for
 * the old one. Brokers agree on the ids when each built its image from the first entry, or from a snapshot that keeps
 * them. A snapshot written before ids decodes with unnumbered topics and {@code nextRaftGroupId} at
 * {@link #RAFT_GROUP_ID_MIN}, so brokers of a cluster upgraded from before ids may disagree on them: the Ratis path
 * ignores them, and the engine is not meant to run on such metadata (an engine switch on an existing data directory
 * is refused).
 */
public record MetadataImage(long appliedRaftIndex, SortedMap<Integer, BrokerInfo> brokers,
        SortedMap<String, TopicInfo> topics, long nextProducerId, Map<TopicPartition, PartitionState> partitionStates,
        java.util.Set<Integer> deadBrokers, String clusterId, ScramCredentials scramCredentials, AclStore acls,
        Map<TopicPartition, PartitionReassignment> reassignments, Map<String, String> brokerDefaults,
        long nextRaftGroupId) {

    /** The first partition Raft group id; 0 stays free for the metadata group. */
    public static final int RAFT_GROUP_ID_MIN = 1;
    /** The last Raft group id: the engine's ids are 32-bit. Past it, new partitions are refused. */
    public static final int RAFT_GROUP_ID_MAX = Integer.MAX_VALUE;

    public static final MetadataImage EMPTY = new MetadataImage(0, new TreeMap<>(), new TreeMap<>(), 0,
            PartitionStates.EMPTY,
            java.util.Set.of(), null);

    /** An image without SCRAM credentials or ACLs. */
    public MetadataImage(long appliedRaftIndex, SortedMap<Integer, BrokerInfo> brokers,
            SortedMap<String, TopicInfo> topics, long nextProducerId,
            Map<TopicPartition, PartitionState> partitionStates, java.util.Set<Integer> deadBrokers, String clusterId) {
        this(appliedRaftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers, clusterId,
                ScramCredentials.EMPTY, AclStore.EMPTY, Map.of(), Map.of(), RAFT_GROUP_ID_MIN);
    }

    public MetadataImage {
        brokers = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(brokers));
        topics = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        partitionStates = PartitionStates.copyOf(partitionStates);
        deadBrokers = java.util.Set.copyOf(deadBrokers);
        reassignments = Map.copyOf(reassignments);
        brokerDefaults = Map.copyOf(brokerDefaults);
        if (nextRaftGroupId < RAFT_GROUP_ID_MIN || nextRaftGroupId > RAFT_GROUP_ID_MAX + 1L) {
            throw new IllegalArgumentException("next Raft group id " + nextRaftGroupId + " outside ["
                    + RAFT_GROUP_ID_MIN + ", " + (RAFT_GROUP_ID_MAX + 1L) + "]");
        }
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
                newStates, newDead, clusterId, scramCredentials, acls, reassignmentsOf(newTopics), brokerDefaults,
                nextRaftGroupId);
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

    /**
     * The image with one partition's state changed: copies that topic's states only ({@link PartitionStates}), as
     * the metadata group applies one such change per partition leadership or in-sync change.
     */
    MetadataImage withPartitionState(long raftIndex, TopicPartition tp, PartitionState state) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId,
                ((PartitionStates) partitionStates).with(tp, state), deadBrokers, clusterId, scramCredentials, acls,
                reassignments, brokerDefaults, nextRaftGroupId);
    }

    MetadataImage withClusterId(long raftIndex, String newClusterId) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                newClusterId, scramCredentials, acls, reassignments, brokerDefaults, nextRaftGroupId);
    }

    MetadataImage withScramCredentials(long raftIndex, ScramCredentials credentials) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                clusterId, credentials, acls, reassignments, brokerDefaults, nextRaftGroupId);
    }

    MetadataImage withAcls(long raftIndex, AclStore newAcls) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers,
                clusterId, scramCredentials, newAcls, reassignments, brokerDefaults, nextRaftGroupId);
    }

    /**
     * The image with these cluster-wide dynamic broker defaults (IncrementalAlterConfigs on the default BROKER
     * resource, {@code kafka-configs --entity-default}).
     */
    MetadataImage withBrokerDefaults(long raftIndex, Map<String, String> newDefaults) {
        return new MetadataImage(raftIndex, brokers, topics, nextProducerId, partitionStates, deadBrokers, clusterId,
                scramCredentials, acls, reassignments, newDefaults, nextRaftGroupId);
    }

    MetadataImage withReassignments(long raftIndex, Map<String, TopicInfo> newTopics,
            Map<TopicPartition, PartitionReassignment> newReassignments) {
        return new MetadataImage(raftIndex, brokers, new TreeMap<>(newTopics), nextProducerId, partitionStates,
                deadBrokers, clusterId, scramCredentials, acls, newReassignments, brokerDefaults, nextRaftGroupId);
    }

    /**
     * The image with {@code newTopics} whose partitions hold Raft group ids below {@code newNextRaftGroupId}. Use
     * {@link #with} when a topic goes: it also drops the topic's partition states and reassignments.
     */
    MetadataImage withTopics(long raftIndex, Map<String, TopicInfo> newTopics, long newNextRaftGroupId) {
        return new MetadataImage(raftIndex, brokers, new TreeMap<>(newTopics), nextProducerId, partitionStates,
                deadBrokers, clusterId, scramCredentials, acls, reassignments, brokerDefaults, newNextRaftGroupId);
    }
}
