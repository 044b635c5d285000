package dev.cairn.client.internal;

import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConfigValues.HostPort;
import dev.cairn.protocol.ErrorCode;
import java.util.List;
import java.util.Map;

/**
 * One immutable Metadata response: brokers, controller, and for each topic its partitions and their leaders.
 *
 * @param brokers node id to address
 * @param controllerId the controller's node id, or -1
 * @param clusterId the cluster id, or null
 * @param topics topic name to its description
 * @param fetchedAtMs when the response arrived, for metadata.max.age.ms
 */
public record ClusterMetadata(Map<Integer, HostPort> brokers, int controllerId, String clusterId,
                              Map<String, TopicMetadata> topics, long fetchedAtMs) {
    /** A topic as Metadata describes it; {@code error} is NONE for a topic that exists. */
    public record TopicMetadata(String name, ErrorCode error, boolean internal, List<PartitionMetadata> partitions) {
    }

    /** A partition; leaderId is -1 while no leader is known. */
    public record PartitionMetadata(int partition, ErrorCode error, int leaderId, List<Integer> replicas,
                                    List<Integer> isr) {
    }

    /** The leader's node id, or -1 when the topic, the partition or its leader is unknown. */
    public int leaderOf(TopicPartition topicPartition) {
        TopicMetadata topic = topics.get(topicPartition.topic());
        if (topic == null || topic.error() != ErrorCode.NONE) {
            return -1;
        }
        for (PartitionMetadata partition : topic.partitions()) {
            if (partition.partition() == topicPartition.partition()) {
                return partition.error() == ErrorCode.NONE ? partition.leaderId() : -1;
            }
        }
        return -1;
    }

    /** The number of partitions, or -1 when the topic is unknown. */
    public int partitionCount(String topic) {
        TopicMetadata metadata = topics.get(topic);
        if (metadata == null || metadata.error() != ErrorCode.NONE) {
            return -1;
        }
        return metadata.partitions().size();
    }
}
