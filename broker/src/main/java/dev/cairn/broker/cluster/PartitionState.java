package dev.cairn.broker.cluster;

import java.util.List;

/**
 * What a partition's leader last published about itself through the metadata group: its node id, the leader
 * epoch (its Raft term) and the in-sync replicas. Brokers that do not host the partition answer Metadata from
 * this; a stale hint costs a client one NOT_LEADER_OR_FOLLOWER and a metadata refresh.
 */
public record PartitionState(int leaderId, int leaderEpoch, List<Integer> isr) {
    public PartitionState {
        isr = List.copyOf(isr);
    }
}
