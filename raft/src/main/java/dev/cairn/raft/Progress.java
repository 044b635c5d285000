package dev.cairn.raft;

import java.util.ArrayDeque;

/**
 * What a leader knows of one follower (Raft figure 2's nextIndex and matchIndex, with etcd-raft's probe and
 * replicate states). Probing sends one append at a time until the follower's log matches; replicating streams
 * appends, at most {@link RaftConfig#inflightAppendsMax()} unanswered.
 */
final class Progress {

    enum State { PROBE, REPLICATE, SNAPSHOT }

    final int peer;
    long matchIndex;
    long nextIndex;
    State state = State.PROBE;
    /** A probe is out and unanswered: send no other until an answer or the next heartbeat's answer. */
    boolean probeSent;
    /** The last index of each unanswered append, oldest first. */
    final ArrayDeque<Long> inflight = new ArrayDeque<>();
    /** In SNAPSHOT: the index of the snapshot sent; nothing else is sent until the follower holds it. */
    long pendingSnapshot;
    /** The runtime reports the follower's broker unreachable: nothing is sent to it until it is back. */
    boolean peerDown;
    /** Heard from since the leader's last quorum check. */
    boolean recentActive;
    /** The highest commit index the follower has acknowledged hearing. */
    long commitAcked;
    /** The highest commit index sent to the follower, in an append or a heartbeat. */
    long commitSent;
    /**
     * A voter; false for a replica the leader catches up before it is made one (a learner: its match index counts
     * toward no majority).
     */
    boolean voting = true;

    Progress(int peer, long nextIndex) {
        this.peer = peer;
        this.nextIndex = nextIndex;
    }

    boolean isPaused(int inflightMax) {
        if (peerDown) {
            return true;
        }
        return switch (state) {
            case PROBE -> probeSent;
            case REPLICATE -> inflight.size() >= inflightMax;
            case SNAPSHOT -> true;
        };
    }

    /** The follower holds everything through {@code index}; false when that is old news. */
    boolean maybeUpdate(long index) {
        boolean updated = index > matchIndex;
        if (updated) {
            matchIndex = index;
            probeSent = false;
        }
        nextIndex = Math.max(nextIndex, index + 1);
        while (!inflight.isEmpty() && inflight.peekFirst() <= index) {
            inflight.pollFirst();
        }
        return updated;
    }

    void becomeProbe() {
        state = State.PROBE;
        probeSent = false;
        inflight.clear();
        nextIndex = matchIndex + 1;
    }

    void becomeReplicate() {
        state = State.REPLICATE;
        probeSent = false;
        nextIndex = matchIndex + 1;
    }

    /** The follower needs the snapshot at {@code snapshotIndex}: nothing else goes to it until it holds it. */
    void becomeSnapshot(long snapshotIndex) {
        state = State.SNAPSHOT;
        probeSent = false;
        inflight.clear();
        pendingSnapshot = snapshotIndex;
    }

    /** Records an append sent with entries through {@code lastIndex}. */
    void onSent(long lastIndex, boolean hasEntries) {
        if (state == State.REPLICATE) {
            if (hasEntries) {
                nextIndex = lastIndex + 1;
                inflight.addLast(lastIndex);
            }
        } else {
            probeSent = true;
        }
    }
}
