package dev.cairn.raft;

import dev.cairn.raft.Message.AppendRequest;
import dev.cairn.raft.Message.AppendResponse;
import dev.cairn.raft.Message.Heartbeat;
import dev.cairn.raft.Message.HeartbeatResponse;
import dev.cairn.raft.Message.InstallSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A leader's side of log replication (Raft section 5.3): what it knows of each follower ({@link Progress}), the
 * appends and heartbeats it sends them, and what their answers tell it. {@link RaftNode} owns the term and the
 * commit index and passes them in; this class only reads the log.
 */
final class Replication {

    private final int id;
    private final RaftConfig config;
    private final RaftLog log;
    private final List<Message> outbox;
    private final Map<Integer, Progress> followers = new LinkedHashMap<>();
    /** Heartbeat ticks in a row with the group caught up: {@link #maybeQuiesce} goes quiet past quiesceAfterTicks. */
    private int caughtUpTicks;

    Replication(int id, RaftConfig config, RaftLog log, List<Message> outbox) {
        this.id = id;
        this.config = config;
        this.log = log;
        this.outbox = outbox;
    }

    /** A new leader knows nothing of its followers: it probes each from the end of its own log. */
    void start(List<Integer> voters) {
        followers.clear();
        caughtUpTicks = 0;
        for (int voter : voters) {
            if (voter != id) {
                followers.put(voter, new Progress(voter, log.lastIndex() + 1));
            }
        }
    }

    void stop() {
        followers.clear();
    }

    /**
     * The leader's configuration changed to {@code voters}: a new voter is probed from the end of the log (and sent
     * a snapshot if it needs one), a voter that left is sent nothing more.
     */
    void follow(List<Integer> voters) {
        followers.values().removeIf(p -> p.voting && !voters.contains(p.peer));
        for (int voter : voters) {
            if (voter != id) {
                followers.computeIfAbsent(voter, peer -> new Progress(peer, log.lastIndex() + 1)).voting = true;
            }
        }
    }

    /**
     * Starts catching up {@code peer}, not a voter, as a learner: it is sent the log (or the snapshot) like a
     * follower, and counts toward no majority, until a configuration makes it a voter or this leadership ends.
     * False when it is a voter or learner already, or when {@link Membership#VOTERS_MAX} learners catch up already
     * (each costs the leader sends like a follower's).
     */
    boolean addLearner(int peer) {
        if (peer == id || followers.containsKey(peer)) {
            return false;
        }
        if (followers.values().stream().filter(p -> !p.voting).count() >= Membership.VOTERS_MAX) {
            return false;
        }
        Progress learner = new Progress(peer, log.lastIndex() + 1);
        learner.voting = false;
        followers.put(peer, learner);
        return true;
    }

    /** The replicas this leader sends its log to: its voters but itself, and its learners. */
    Set<Integer> peers() {
        return followers.keySet();
    }

    /** A follower not reported down that holds every entry through {@code lastIndex}, or NONE. */
    int caughtUpFollower(long lastIndex) {
        for (Progress p : followers.values()) {
            if (p.voting && !p.peerDown && p.matchIndex >= lastIndex) {
                return p.peer;
            }
        }
        return RaftNode.NONE;
    }

    /** Sends every follower whose window is open what it lacks. */
    void sendAppends(long term, long commitIndex) {
        followers.values().forEach(p -> maybeSendAppend(p, term, commitIndex));
    }

    /**
     * Tells each follower that holds committed entries it has not been told of, and has no append in flight that
     * will tell it, about them: it applies them a round trip after the leader rather than at the next heartbeat.
     */
    void sendCommit(long term, long commitIndex) {
        for (Progress p : followers.values()) {
            boolean nothingInFlight = p.nextIndex - 1 == p.matchIndex;
            if (nothingInFlight && Math.min(p.matchIndex, commitIndex) > p.commitSent) {
                maybeSendAppend(p, term, commitIndex);
            }
        }
    }

    /** Heartbeats to every follower not reported down. */
    void sendHeartbeats(long term, long commitIndex, boolean quiesce) {
        for (Progress p : followers.values()) {
            if (p.peerDown) {
                continue;
            }
            long commit = Math.min(p.matchIndex, commitIndex);
            p.commitSent = Math.max(p.commitSent, commit);
            outbox.add(new Heartbeat(id, p.peer, term, commit, quiesce));
        }
    }

    /** An answer to an append; true when the follower now holds more than the leader knew. */
    boolean onAppendResponse(AppendResponse response, long term, long commitIndex) {
        Progress p = followers.get(response.from());
        if (p == null) {
            return false;
        }
        p.recentActive = true;
        boolean progressed = false;
        if (response.success()) {
            progressed = p.maybeUpdate(response.matchIndex());
            boolean snapshotTaken = p.state == Progress.State.SNAPSHOT && p.matchIndex >= p.pendingSnapshot;
            if (progressed && p.state == Progress.State.PROBE || snapshotTaken) {
                p.becomeReplicate();
            }
            while (p.nextIndex <= log.lastIndex() && !p.isPaused(config.inflightAppendsMax())) {
                maybeSendAppend(p, term, commitIndex);
            }
        } else if (response.hintIndex() >= p.matchIndex) {
            p.becomeProbe();
            p.nextIndex = Math.max(p.matchIndex + 1, response.hintIndex() + 1);
            maybeSendAppend(p, term, commitIndex);
        }
        return progressed;
    }

    void onHeartbeatResponse(HeartbeatResponse response, long term, long commitIndex) {
        Progress p = followers.get(response.from());
        if (p == null) {
            return;
        }
        p.recentActive = true;
        p.commitAcked = Math.max(p.commitAcked, response.commitIndex());
        if (p.matchIndex < log.lastIndex()) {
            // An append, a snapshot or an answer may have been lost: probe again (a snapshot is sent again if still
            // needed), or free one slot of a full window.
            if (p.state == Progress.State.PROBE) {
                p.probeSent = false;
            } else if (p.state == Progress.State.SNAPSHOT) {
                p.becomeProbe();
            } else if (p.isPaused(config.inflightAppendsMax())) {
                p.inflight.pollFirst();
            }
            maybeSendAppend(p, term, commitIndex);
        }
    }

    /**
     * Sends the next append to a follower unless its window is full (an empty one when it has every entry), or the
     * leader's snapshot when the entries it needs are compacted away.
     */
    private void maybeSendAppend(Progress p, long term, long commitIndex) {
        if (p.isPaused(config.inflightAppendsMax())) {
            return;
        }
        long prevIndex = p.nextIndex - 1;
        SnapshotMeta snapshot = log.snapshot();
        if (prevIndex < snapshot.raftIndex()) {
            outbox.add(new InstallSnapshot(id, p.peer, term, snapshot.raftIndex(), snapshot.term(),
                    snapshot.voters()));
            p.becomeSnapshot(snapshot.raftIndex());
            return;
        }
        long prevTerm = log.termAt(prevIndex);
        Invariant.check(prevTerm >= 0, "next index %s for %s beyond the log's end %s", p.nextIndex, p.peer,
                log.lastIndex());
        List<Entry> entries = log.slice(p.nextIndex, config.appendBytesMax());
        long commit = Math.min(commitIndex, prevIndex + entries.size());
        p.commitSent = Math.max(p.commitSent, commit);
        outbox.add(new AppendRequest(id, p.peer, term, prevIndex, prevTerm, entries, commit));
        p.onSent(prevIndex + entries.size(), !entries.isEmpty());
    }

    /** The highest index {@code peer} is known to hold (0 when it is not a follower of this leader). */
    long matchIndex(int peer) {
        Progress p = followers.get(peer);
        return p == null ? 0 : p.matchIndex;
    }

    /**
     * The highest index a majority of the group holds (the leader counts what it persisted when it is a voter: a
     * leader removing itself does not count).
     */
    long majorityMatchIndex(int majority, boolean leaderVotes) {
        List<Long> matches = new ArrayList<>();
        if (leaderVotes) {
            matches.add(log.stableIndex());
        }
        followers.values().stream().filter(p -> p.voting).forEach(p -> matches.add(p.matchIndex));
        matches.sort((a, b) -> Long.compare(b, a));
        return matches.size() < majority ? 0 : matches.get(majority - 1);
    }

    /** Whether a majority (the leader included) was heard from since the last check; starts the next check. */
    boolean checkQuorumActive(int majority, boolean leaderVotes) {
        long active = (leaderVotes ? 1 : 0) + followers.values().stream().filter(p -> p.voting && p.recentActive)
                .count();
        followers.values().forEach(p -> p.recentActive = false);
        return active >= majority;
    }

    /**
     * The runtime reports a follower's broker unreachable ({@code down}) or reachable again. A down follower is sent
     * nothing (no appends, no heartbeats) and does not keep the group from going quiet; one back is probed from what
     * it holds. Whether that changed anything.
     */
    boolean setPeerDown(int peer, boolean down) {
        Progress p = followers.get(peer);
        if (p == null || p.peerDown == down) {
            return false;
        }
        p.peerDown = down;
        p.becomeProbe();
        return true;
    }

    /**
     * Called at each heartbeat: whether the group may go quiet, that is whether every entry is committed and
     * persisted here and every follower not reported down, a majority with the leader, holds every entry and has
     * acknowledged the commit index, for quiesceAfterTicks in a row. A follower that comes back wakes the group.
     */
    boolean maybeQuiesce(long commitIndex, int majority) {
        long last = log.lastIndex();
        boolean caughtUp = commitIndex == last && log.stableIndex() == last;
        int reachable = 1;
        for (Progress p : followers.values()) {
            if (!p.peerDown) {
                caughtUp &= p.matchIndex == last && p.commitAcked >= commitIndex;
                reachable += p.voting ? 1 : 0;
            }
        }
        caughtUp &= reachable >= majority;
        caughtUpTicks = caughtUp ? caughtUpTicks + config.heartbeatTicks() : 0;
        return caughtUp && caughtUpTicks >= config.quiesceAfterTicks();
    }

    void resetQuiesceCount() {
        caughtUpTicks = 0;
    }
}
