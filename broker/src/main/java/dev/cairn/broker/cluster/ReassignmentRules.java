package dev.cairn.broker.cluster;

import dev.cairn.broker.cluster.MetadataCommand.CompleteReassignment;
import dev.cairn.broker.cluster.MetadataCommand.ReassignPartition;
import dev.cairn.protocol.ErrorCode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * How the metadata group applies partition reassignments (deterministic, on the metadata apply thread). A target
 * holding the same brokers as the partition already has only reorders its replicas; any other starts a reassignment,
 * during which the replica list is the target followed by the replicas still to leave. A new target for a partition
 * already moving keeps the original replicas (what a cancellation returns to). Completion applies only for the
 * target in progress, so a leader's report based on an older target changes nothing.
 */
final class ReassignmentRules {
    /** The image after a command, and the command's answer. */
    record Outcome(MetadataImage image, MetadataResult result, boolean changed) {
    }

    private ReassignmentRules() {
    }

    /** Applies a ReassignPartition or a CompleteReassignment. */
    static Outcome apply(long raftIndex, MetadataImage current, MetadataCommand command) {
        return command instanceof ReassignPartition reassign ? reassign(raftIndex, current, reassign)
                : complete(raftIndex, current, (CompleteReassignment) command);
    }

    static Outcome reassign(long raftIndex, MetadataImage current, ReassignPartition command) {
        TopicInfo topic = current.topics().get(command.topic());
        if (!names(topic, command.topicId(), command.partition())) {
            return unchanged(raftIndex, current, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "partition "
                    + command.topic() + "-" + command.partition() + " does not exist");
        }
        TopicPartition tp = new TopicPartition(command.topic(), command.partition());
        PartitionReassignment ongoing = current.reassignments().get(tp);
        List<Integer> replicas = topic.replicas().get(command.partition());
        List<Integer> original = ongoing != null ? ongoing.original() : replicas;
        List<Integer> target = command.target();
        if (target.isEmpty()) {
            if (ongoing == null) {
                return unchanged(raftIndex, current, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "no reassignment of "
                        + tp.topic() + "-" + tp.partition() + " is in progress");
            }
            target = original;
        } else if (new HashSet<>(target).size() != target.size() || !current.brokers().keySet().containsAll(target)) {
            return unchanged(raftIndex, current, ErrorCode.INVALID_REPLICA_ASSIGNMENT, "replicas " + target
                    + " are not distinct registered brokers (registered: " + current.brokers().keySet() + ")");
        }
        Map<TopicPartition, PartitionReassignment> reassignments = new HashMap<>(current.reassignments());
        List<Integer> next;
        if (new HashSet<>(target).equals(new HashSet<>(replicas))) {
            reassignments.remove(tp);
            next = target;
        } else {
            reassignments.put(tp, new PartitionReassignment(target, original));
            next = PartitionReassignment.merged(target, replicas);
        }
        return new Outcome(withReplicas(raftIndex, current, topic, command.partition(), next, reassignments),
                MetadataResult.OK, true);
    }

    static Outcome complete(long raftIndex, MetadataImage current, CompleteReassignment command) {
        TopicInfo topic = current.topics().get(command.topic());
        TopicPartition tp = new TopicPartition(command.topic(), command.partition());
        PartitionReassignment ongoing = current.reassignments().get(tp);
        if (!names(topic, command.topicId(), command.partition()) || ongoing == null
                || !ongoing.target().equals(command.target())) {
            return unchanged(raftIndex, current, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "no reassignment of "
                    + tp.topic() + "-" + tp.partition() + " to " + command.target() + " is in progress");
        }
        Map<TopicPartition, PartitionReassignment> reassignments = new HashMap<>(current.reassignments());
        reassignments.remove(tp);
        return new Outcome(withReplicas(raftIndex, current, topic, command.partition(), ongoing.target(),
                reassignments), MetadataResult.OK, true);
    }

    private static boolean names(TopicInfo topic, UUID topicId, int partition) {
        return topic != null && topic.topicId().equals(topicId) && partition >= 0
                && partition < topic.partitionCount();
    }

    private static MetadataImage withReplicas(long raftIndex, MetadataImage current, TopicInfo topic, int partition,
            List<Integer> replicas, Map<TopicPartition, PartitionReassignment> reassignments) {
        List<List<Integer>> all = new java.util.ArrayList<>(topic.replicas());
        all.set(partition, replicas);
        Map<String, TopicInfo> topics = new TreeMap<>(current.topics());
        topics.put(topic.name(), topic.withReplicas(all));
        return current.withReassignments(raftIndex, topics, reassignments);
    }

    private static Outcome unchanged(long raftIndex, MetadataImage current, ErrorCode error, String message) {
        return new Outcome(current.withReassignments(raftIndex, current.topics(), current.reassignments()),
                new MetadataResult.Rejected(error, message), false);
    }
}
