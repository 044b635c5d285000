package dev.cairn.broker.raft;

/**
 * This server's view of one group: whether it is the ready leader, who leads (a node id, or null when no
 * leader is known), the current Raft term (Kafka's leader epoch) and the last applied Raft index.
 */
public record GroupRole(boolean isLeader, String leaderId, long term, long appliedRaftIndex) {

    /** The leader's node id (Raft peer ids are node ids), or -1 when none is known or the id is not a number. */
    public int leaderNodeId() {
        if (leaderId == null) {
            return -1;
        }
        try {
            return Integer.parseInt(leaderId);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
