package dev.cairn.raft;

import java.util.List;

/**
 * The messages replicas of one group exchange (Raft figure 2, with pre-vote and quiescence). They carry no group
 * id: the runtime that multiplexes many groups over one connection per broker pair adds it. Every message has the
 * sender's term; a replica that sees a higher term moves to it before anything else (except a pre-vote, which
 * changes no term).
 */
public sealed interface Message {

    int from();

    int to();

    long term();

    /**
     * A candidate asks for a vote. A pre-vote ({@code preVote}) asks whether the voter would grant a vote in
     * {@code term} (the candidate's term plus one) without anyone changing term, so that a replica that was cut off
     * cannot depose a working leader when it comes back (Ongaro's thesis, section 9.6). A {@code transfer} vote is
     * the campaign a {@link TimeoutNow} started: the leader asked for it, so leases do not hold it back.
     */
    record VoteRequest(int from, int to, long term, long lastIndex, long lastTerm, boolean preVote, boolean transfer)
            implements Message {
    }

    /** The answer to a {@link VoteRequest}; {@code term} is the request's term when granted, the voter's otherwise. */
    record VoteResponse(int from, int to, long term, boolean granted, boolean preVote) implements Message {
    }

    /**
     * The leader's entries after {@code prevIndex}, which must hold an entry of {@code prevTerm} on the follower
     * (Raft's consistency check), and the leader's commit index, capped at the last entry sent.
     */
    record AppendRequest(int from, int to, long term, long prevIndex, long prevTerm, List<Entry> entries,
            long commitIndex) implements Message {

        public AppendRequest {
            entries = List.copyOf(entries);
        }

        long lastIndex() {
            return prevIndex + entries.size();
        }
    }

    /**
     * The follower's answer to an {@link AppendRequest}. When {@code success}, {@code matchIndex} is the last index
     * the follower now holds in agreement with the leader. When refused, {@code hintIndex} is where the follower
     * suggests the leader look next: the highest index it may share with the leader.
     */
    record AppendResponse(int from, int to, long term, boolean success, long matchIndex, long hintIndex)
            implements Message {
    }

    /**
     * The leader is alive; {@code commitIndex} is capped at what the follower is known to hold. With {@code
     * quiesce} the leader says it will send nothing more until there is something to replicate: the follower stops
     * its election timer until it hears from the group again or the runtime reports the leader's broker down.
     */
    record Heartbeat(int from, int to, long term, long commitIndex, boolean quiesce) implements Message {
    }

    /**
     * The follower needs entries the leader has compacted into a snapshot: the runtime sends the leader's snapshot
     * of its state machine with this message, and the follower's runtime restores from it when the follower's
     * {@link Ready#snapshot()} says so. Answered with an {@link AppendResponse}. {@code voters} is the group's
     * configuration at the snapshot's index (empty when the leader does not know it).
     */
    record InstallSnapshot(int from, int to, long term, long snapshotIndex, long snapshotTerm, List<Integer> voters)
            implements Message {

        public InstallSnapshot {
            voters = List.copyOf(voters);
        }

        SnapshotMeta snapshot() {
            return new SnapshotMeta(snapshotIndex, snapshotTerm, voters);
        }
    }

    /**
     * The leader hands its leadership over (Ongaro's thesis, section 3.10): the follower, which holds every entry of
     * the leader's log, campaigns at once, without pre-vote, and its vote requests say so ({@code transfer}), so
     * that voters still under the old leader's lease grant them.
     */
    record TimeoutNow(int from, int to, long term) implements Message {
    }

    /** The follower heard a {@link Heartbeat}; {@code commitIndex} echoes the one it carried. */
    record HeartbeatResponse(int from, int to, long term, long commitIndex) implements Message {
    }
}
