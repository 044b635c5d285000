package dev.cairn.raft.runtime;

/** Told, on the group's loop thread, whenever a group's leader or term as this replica sees it changes. */
@FunctionalInterface
public interface LeadershipListener {

    /**
     * @param leader the replica this one follows (itself when leading), or {@link dev.cairn.raft.RaftNode#NONE}
     * @param serving this replica leads and has committed an entry of its term, so its reads are current
     */
    void onLeadership(int group, int leader, long term, boolean serving);
}
