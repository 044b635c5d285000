package dev.cairn.broker.cluster;

/**
 * Who leads a partition as this broker sees it: the leader's node id (-1 when unknown) and the leader epoch
 * (the Raft term). {@code local} is true when this broker is the ready leader.
 */
public record Leadership(int leaderId, int leaderEpoch, boolean local) {
    public static final Leadership UNKNOWN = new Leadership(-1, -1, false);
}
