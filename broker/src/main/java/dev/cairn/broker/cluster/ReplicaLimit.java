package dev.cairn.broker.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The per-broker replica limit: how many partition replicas (each its own Raft group) one broker may host. Checked
 * on the controller before a topic is created or grown, as Kafka checks its create-topic policies, so the answer is
 * POLICY_VIOLATION with a message naming the broker, and nothing is proposed.
 */
public final class ReplicaLimit {
    private ReplicaLimit() {
    }

    /**
     * Why adding {@code addedReplicas} (one replica list per new partition) to {@code image} would put more than
     * {@code replicasPerBrokerMax} replicas on a broker, or empty when it would not.
     */
    public static Optional<String> exceeded(MetadataImage image, List<List<Integer>> addedReplicas,
            int replicasPerBrokerMax) {
        Map<Integer, Integer> added = new HashMap<>();
        for (List<Integer> replicas : addedReplicas) {
            for (int broker : replicas) {
                added.merge(broker, 1, Integer::sum);
            }
        }
        if (added.isEmpty()) {
            return Optional.empty();
        }
        Map<Integer, Integer> hosted = new HashMap<>();
        for (TopicInfo topic : image.topics().values()) {
            for (List<Integer> replicas : topic.replicas()) {
                for (int broker : replicas) {
                    if (added.containsKey(broker)) {
                        hosted.merge(broker, 1, Integer::sum);
                    }
                }
            }
        }
        for (Map.Entry<Integer, Integer> entry : added.entrySet()) {
            int total = hosted.getOrDefault(entry.getKey(), 0) + entry.getValue();
            if (total > replicasPerBrokerMax) {
                return Optional.of("broker " + entry.getKey() + " would host " + total + " partition replicas, more "
                        + "than the limit of " + replicasPerBrokerMax + " per broker (each replica is a Raft group; "
                        + "see README, Limits)");
            }
        }
        return Optional.empty();
    }
}
