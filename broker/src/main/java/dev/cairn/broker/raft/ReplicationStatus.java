package dev.cairn.broker.raft;

import java.util.Map;

/**
 * How a group's followers stand, as its leader sees them: the leader's commit index, and per follower node id
 * its last reported commit index and the milliseconds since the leader last heard from it.
 */
public record ReplicationStatus(long leaderCommitIndex, Map<String, Follower> followers) {

    /** One follower as the leader last saw it. */
    public record Follower(long commitIndex, long lastResponseElapsedMs) {
    }
}
