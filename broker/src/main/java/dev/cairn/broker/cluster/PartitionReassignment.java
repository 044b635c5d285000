package dev.cairn.broker.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * A partition's replicas moving from {@code original} to {@code target} (AlterPartitionReassignments). While it is in
 * progress the partition's replica list is the target followed by the replicas still to leave, as in Kafka: new
 * replicas join the partition's Raft group and catch up, leadership moves to a target replica if need be, then the
 * others leave the group, and the replica list becomes the target.
 */
public record PartitionReassignment(List<Integer> target, List<Integer> original) {

    public PartitionReassignment {
        target = List.copyOf(target);
        original = List.copyOf(original);
    }

    /** Replicas in the target that were not replicas when the reassignment started. */
    public List<Integer> adding() {
        List<Integer> adding = new ArrayList<>(target);
        adding.removeAll(original);
        return adding;
    }

    /** Of the partition's {@code current} replicas, those the target does not keep. */
    public List<Integer> removing(List<Integer> current) {
        List<Integer> removing = new ArrayList<>(current);
        removing.removeAll(target);
        return removing;
    }

    /** The replica list while moving from {@code current} to {@code target}: the target, then those leaving. */
    public static List<Integer> merged(List<Integer> target, List<Integer> current) {
        List<Integer> merged = new ArrayList<>(target);
        for (int replica : current) {
            if (!merged.contains(replica)) {
                merged.add(replica);
            }
        }
        return merged;
    }
}
