package dev.cairn.client;

import java.util.List;

/**
 * A topic as the cluster describes it.
 *
 * @param name the topic name
 * @param internal whether it is an internal topic
 * @param partitions its partitions in order
 */
public record TopicDescription(String name, boolean internal, List<PartitionInfo> partitions) {
    /** A partition: its leader (-1 while none), replicas and in-sync replicas by node id. */
    public record PartitionInfo(int partition, int leader, List<Integer> replicas, List<Integer> isr) {
    }
}
