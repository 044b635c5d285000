package dev.cairn.broker.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A topic as the metadata group knows it. {@code replicas.get(p)} lists partition p's replica node ids, the
 * first being the preferred leader. Configs are topic-level overrides (for example {@code retention.ms}).
 *
 * <p>{@code raftGroups.get(p)} is partition p's Raft group id on Cairn's own engine, assigned by
 * {@link ClusterMetadata} when the partition was created (see {@link MetadataImage#nextRaftGroupId()}). The list is
 * either empty, for a topic created before the metadata assigned ids (it stays so when partitions are added), or
 * holds one id per partition.
 */
public record TopicInfo(String name, UUID topicId, List<List<Integer>> replicas, Map<String, String> configs,
        List<Integer> raftGroups) {

    public TopicInfo {
        replicas = replicas.stream().map(List::copyOf).toList();
        configs = Map.copyOf(configs);
        raftGroups = List.copyOf(raftGroups);
        if (!raftGroups.isEmpty() && raftGroups.size() != replicas.size()) {
            throw new IllegalArgumentException("topic " + name + " has " + replicas.size() + " partitions but "
                    + raftGroups.size() + " Raft group ids");
        }
        for (int raftGroup : raftGroups) {
            if (raftGroup < MetadataImage.RAFT_GROUP_ID_MIN) {
                throw new IllegalArgumentException("topic " + name + " has Raft group id " + raftGroup + " below "
                        + MetadataImage.RAFT_GROUP_ID_MIN);
            }
        }
    }

    /** A topic without Raft group ids: as proposed (the metadata assigns them), or created before ids existed. */
    public TopicInfo(String name, UUID topicId, List<List<Integer>> replicas, Map<String, String> configs) {
        this(name, topicId, replicas, configs, List.of());
    }

    public int partitionCount() {
        return replicas.size();
    }

    public int replicationFactor() {
        return replicas.isEmpty() ? 0 : replicas.get(0).size();
    }

    /**
     * Partition {@code partition}'s Raft group id on Cairn's engine, or 0 when the topic predates those ids.
     *
     * @throws IndexOutOfBoundsException if the topic has no such partition
     */
    public int raftGroup(int partition) {
        Objects.checkIndex(partition, partitionCount());
        return raftGroups.isEmpty() ? 0 : raftGroups.get(partition);
    }

    /** This topic with {@code newReplicas}, keeping its id, configs and Raft group ids (same partition count). */
    TopicInfo withReplicas(List<List<Integer>> newReplicas) {
        return new TopicInfo(name, topicId, newReplicas, configs, raftGroups);
    }

    /** This topic with {@code newConfigs}, keeping everything else. */
    TopicInfo withConfigs(Map<String, String> newConfigs) {
        return new TopicInfo(name, topicId, replicas, newConfigs, raftGroups);
    }

    /** This topic with {@code newRaftGroups}: none, or one per partition. */
    TopicInfo withRaftGroups(List<Integer> newRaftGroups) {
        return raftGroups.equals(newRaftGroups) ? this : new TopicInfo(name, topicId, replicas, configs, newRaftGroups);
    }

    /**
     * This topic grown by {@code added} partitions whose Raft group ids are {@code addedRaftGroups}: one per added
     * partition when the topic has ids, none for a topic from before ids.
     */
    TopicInfo withPartitions(List<List<Integer>> added, List<Integer> addedRaftGroups) {
        List<List<Integer>> allReplicas = new ArrayList<>(replicas);
        allReplicas.addAll(added);
        List<Integer> allGroups = new ArrayList<>(raftGroups);
        allGroups.addAll(addedRaftGroups);
        return new TopicInfo(name, topicId, allReplicas, configs, allGroups);
    }
}
