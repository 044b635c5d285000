package dev.cairn.broker.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * Places a new topic's replicas: each partition's replicas on distinct brokers, preferred leaders (the first
 * replica) spread round-robin starting at a per-topic offset, and followers shifted so that replica sets vary.
 * Deterministic for given inputs, so the proposing broker computes it once and the command carries it.
 */
public final class ReplicaAssigner {
    private ReplicaAssigner() {
    }

    /**
     * @param brokerIds live brokers, in any order (sorted here)
     * @param startIndex where the first partition's leader falls, e.g. a hash of the topic name
     */
    public static List<List<Integer>> assign(List<Integer> brokerIds, int partitions, int replicationFactor,
            int startIndex) {
        if (replicationFactor > brokerIds.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " exceeds the "
                    + brokerIds.size() + " available brokers");
        }
        List<Integer> brokers = brokerIds.stream().sorted().toList();
        int n = brokers.size();
        int start = Math.floorMod(startIndex, n);
        List<List<Integer>> assignment = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            int leaderSlot = (start + p) % n;
            // The follower shift changes every n partitions so that replica sets are not all identical.
            int shift = n > 1 ? 1 + (p / n) % (n - 1) : 0;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            replicas.add(brokers.get(leaderSlot));
            for (int r = 1; r < replicationFactor; r++) {
                int slot = (leaderSlot + shift + r - 1) % n;
                if (slot == leaderSlot) {
                    slot = (slot + 1) % n;
                }
                while (replicas.contains(brokers.get(slot))) {
                    slot = (slot + 1) % n;
                }
                replicas.add(brokers.get(slot));
            }
            assignment.add(List.copyOf(replicas));
        }
        return assignment;
    }
}
