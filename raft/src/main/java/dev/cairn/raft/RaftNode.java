package dev.cairn.raft;

import dev.cairn.raft.Message.AppendRequest;
import dev.cairn.raft.Message.AppendResponse;
import dev.cairn.raft.Message.Heartbeat;
import dev.cairn.raft.Message.HeartbeatResponse;
import dev.cairn.raft.Message.InstallSnapshot;
import dev.cairn.raft.Message.TimeoutNow;
import dev.cairn.raft.Message.VoteRequest;
import dev.cairn.raft.Message.VoteResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One replica of one Raft group, as a deterministic state machine in the style of etcd-raft: the runtime feeds it
 * ticks ({@link #tick()}), messages ({@link #step(Message)}), proposals ({@link #propose}) and failure
 * reports ({@link #onPeerDown(int)}), and carries out the {@link Ready} it hands back. It owns no thread, reads no
 * clock and does no I/O, so thousands of groups can share a few threads, and a seeded simulation can drive it
 * (RaftSimulationTest). Not thread-safe: one thread at a time per group.
 *
 * <p>Beyond Raft's figure 2: pre-vote and leader leases (a replica that heard from its leader recently ignores
 * votes, so a replica coming back from a partition cannot depose a working leader), check-quorum (a leader that
 * has not heard from a majority for an election timeout steps down), and quiescence: a group whose followers are
 * all caught up goes quiet (no heartbeats, no election timers) until the next proposal, and relies on the runtime's
 * per-broker failure detector ({@link #onPeerDown(int)}) instead of per-group heartbeats to notice a dead leader.
 * That is what lets an idle group cost nothing (issue 18; CockroachDB's quiesced ranges).
 */
public final class RaftNode extends RaftState {

    /** No replica: replica ids start at 1. */
    public static final int NONE = 0;
    /** {@link #propose} refused: this replica does not lead its group. */
    public static final long REFUSED_NOT_LEADER = -1;
    /** {@link #propose} refused: {@link RaftConfig#uncommittedEntriesMax()} entries are already uncommitted. */
    public static final long REFUSED_BUSY = -2;
    /** {@link #propose} refused: this leader is handing its leadership to another replica. */
    public static final long REFUSED_TRANSFERRING = -3;
    /**
     * {@link #proposeVoters} refused: a configuration change is not committed yet, or this leader has not yet
     * committed an entry of its own term (Ongaro's fix to one-at-a-time changes: a new leader must not change the
     * configuration before it knows it holds the latest committed one).
     */
    public static final long REFUSED_CHANGE_PENDING = -4;

    private RaftNode(int id, List<Integer> voters, RaftConfig config, RandomGenerator random, HardState hardState,
            SnapshotMeta snapshot, List<Entry> entries, long appliedIndex) {
        super(id, config, random, new RaftLog(snapshot, entries, hardState.commitIndex(), voters), hardState,
                appliedIndex);
        Invariant.check(id != NONE && !voters.isEmpty(), "replica %s with voters %s", id, voters);
        Invariant.check(appliedIndex >= snapshot.raftIndex(), "applied %s below the snapshot %s", appliedIndex,
                snapshot.raftIndex());
        resetElectionTimer();
    }

    /**
     * A replica started from what its runtime persisted ({@link HardState#INITIAL} and no entries for a new one),
     * with its state machine holding every entry through {@code appliedIndex}. It starts as a follower that knows no
     * leader; {@code random} (seeded in tests) spreads election timeouts. {@code voters} stand until the log or its
     * snapshot names others ({@link Membership}); a replica not among them (one being added to its group) never
     * stands for election until the leader's log makes it a voter.
     */
    public static RaftNode start(int id, List<Integer> voters, RaftConfig config, RandomGenerator random,
            HardState hardState, List<Entry> entries, long appliedIndex) {
        return start(id, voters, config, random, hardState, SnapshotMeta.NONE, entries, appliedIndex);
    }

    /** A replica whose log starts after {@code snapshot}, which its state machine holds ({@code appliedIndex}). */
    public static RaftNode start(int id, List<Integer> voters, RaftConfig config, RandomGenerator random,
            HardState hardState, SnapshotMeta snapshot, List<Entry> entries, long appliedIndex) {
        return new RaftNode(id, voters, config, random, hardState, snapshot, entries, appliedIndex);
    }

    /** One tick of the runtime's clock. */
    public void tick() {
        if (quiesced) {
            return;
        }
        if (role == Role.LEADER) {
            tickLeader();
            if (role == Role.LEADER) {
                maybeStepDownRemoved();
            }
        } else if (electionDue() && mayCampaign()) {
            campaign(true);
        }
    }

    private void tickLeader() {
        if (transferee != NONE && ++transferElapsed >= config.electionTicks()) {
            transferee = NONE;
        }
        if (++electionElapsed >= config.electionTicks()) {
            electionElapsed = 0;
            if (!replication.checkQuorumActive(majority(), isVoter())) {
                becomeFollower(term, NONE);
                return;
            }
        }
        if (++heartbeatElapsed >= config.heartbeatTicks()) {
            heartbeatElapsed = 0;
            quiesced = transferee == NONE && isVoter()
                    && replication.maybeQuiesce(log.committed(), majority());
            replication.sendHeartbeats(term, log.committed(), quiesced);
        }
    }

    /**
     * The runtime's failure detector says the broker of replica {@code peer} is unreachable (it may say so again and
     * again). A follower whose leader that is wakes and may campaign; a leader stops sending to that follower and
     * wakes, so that it checks its quorum again and may go quiet without it.
     */
    public void onPeerDown(int peer) {
        if (role == Role.LEADER) {
            if (replication.setPeerDown(peer, true)) {
                wake();
            }
        } else if (peer == leader) {
            leaderDown = true;
            quiesced = false;
        }
    }

    /** The broker of replica {@code peer} is reachable again: a leader catches that follower up. */
    public void onPeerUp(int peer) {
        if (role == Role.LEADER) {
            if (replication.setPeerDown(peer, false)) {
                wake();
                replication.sendAppends(term, log.committed());
            }
        } else if (peer == leader) {
            leaderDown = false;
        }
    }

    /**
     * Appends a command to the log, when this replica leads: its index, which commits or is lost (a later leader may
     * replace it; the runtime learns which when an entry of that index applies), or a REFUSED_ code. The entry holds
     * {@code head} then {@code tail} ({@link Entry#NO_TAIL}: none) without a copy: the caller must never change them.
     */
    public long propose(byte[] head, ByteBuffer tail) {
        if (role != Role.LEADER) {
            return REFUSED_NOT_LEADER;
        }
        if (transferee != NONE) {
            return REFUSED_TRANSFERRING;
        }
        if (log.lastIndex() - log.committed() >= config.uncommittedEntriesMax()) {
            return REFUSED_BUSY;
        }
        if (Membership.reserved(head, tail)) {
            throw new IllegalArgumentException("a command may not start with a configuration entry's magic bytes");
        }
        wake();
        long raftIndex = log.lastIndex() + 1;
        log.append(new Entry(term, raftIndex, head, tail));
        replication.sendAppends(term, log.committed());
        return raftIndex;
    }

    /** Takes one message from a replica of this group. */
    public void step(Message message) {
        Invariant.check(message.to() == id, "message for %s stepped into %s", message.to(), id);
        // Messages from replicas outside the configuration are taken too: a replica being added hears from the
        // leader before its log names it, and a removed leader leads until its removal commits. Only vote
        // responses count by membership (onVoteResponse); terms and log comparison keep the rest safe.
        if (message.from() == id || message.from() == NONE) {
            return;
        }
        if (message.term() > term) {
            if (!stepHigherTerm(message)) {
                return;
            }
        } else if (message.term() < term) {
            answerStaleTerm(message);
            return;
        }
        if (message instanceof VoteRequest request) {
            onVoteRequest(request);
        } else if (message instanceof VoteResponse response) {
            onVoteResponse(response);
        } else if (message instanceof AppendRequest request) {
            onAppendRequest(request);
        } else if (message instanceof AppendResponse response) {
            onAppendResponse(response);
        } else if (message instanceof Heartbeat heartbeat) {
            onHeartbeat(heartbeat);
        } else if (message instanceof HeartbeatResponse response) {
            onHeartbeatResponse(response);
        } else if (message instanceof InstallSnapshot request) {
            onInstallSnapshot(request);
        } else if (message instanceof TimeoutNow && leader == message.from() && role == Role.FOLLOWER) {
            campaign(false);
        }
    }

    /** A message of a later term: move to it, unless it is a vote request inside a lease. False: drop the message. */
    private boolean stepHigherTerm(Message message) {
        if (message instanceof VoteRequest request) {
            if (inLease() && !request.transfer()) {
                if (role == Role.LEADER) {
                    wake();
                }
                return false;
            }
            if (!request.preVote()) {
                becomeFollower(message.term(), NONE);
            }
        } else if (message instanceof VoteResponse response && response.preVote() && response.granted()) {
            return true;
        } else if (message instanceof AppendRequest || message instanceof Heartbeat
                || message instanceof InstallSnapshot) {
            becomeFollower(message.term(), message.from());
        } else {
            becomeFollower(message.term(), NONE);
        }
        return true;
    }

    /** Tells a deposed leader or a stale pre-candidate the current term, which makes it step down. */
    private void answerStaleTerm(Message message) {
        if (message instanceof AppendRequest || message instanceof Heartbeat || message instanceof InstallSnapshot) {
            send(new AppendResponse(id, message.from(), term, false, 0, 0));
        } else if (message instanceof VoteRequest request && request.preVote()) {
            send(new VoteResponse(id, message.from(), term, false, true));
        }
    }

    private void onVoteRequest(VoteRequest request) {
        boolean canVote = votedFor == request.from() || votedFor == NONE && leader == NONE
                || request.preVote() && request.term() > term;
        boolean granted = canVote && log.isUpToDate(request.lastIndex(), request.lastTerm());
        if (granted && !request.preVote()) {
            votedFor = request.from();
            electionElapsed = 0;
        }
        send(new VoteResponse(id, request.from(), granted ? request.term() : term, granted, request.preVote()));
    }

    private void onVoteResponse(VoteResponse response) {
        // A granted pre-vote carries the term it was asked for; one from an earlier round (an older term) must not
        // count in this one.
        boolean counts = role == Role.PRE_CANDIDATE && response.preVote()
                && (response.term() == term + 1 || !response.granted())
                || role == Role.CANDIDATE && !response.preVote();
        if (!counts || !voters().contains(response.from())) {
            return;
        }
        switch (votes.record(response.from(), response.granted(), majority())) {
            case WON -> won();
            case LOST -> becomeFollower(term, NONE);
            default -> { }
        }
    }

    private void won() {
        if (role == Role.PRE_CANDIDATE) {
            campaign(false);
        } else {
            becomeLeader();
        }
    }

    /** Stands for election; {@code preVote} first asks whether it could win. A transfer's campaign has none. */
    private void campaign(boolean preVote) {
        boolean transfer = !preVote && role == Role.FOLLOWER;
        votes.clear();
        leader = NONE;
        leaderDown = false;
        resetElectionTimer();
        long voteTerm;
        if (preVote) {
            role = Role.PRE_CANDIDATE;
            voteTerm = term + 1;
        } else {
            role = Role.CANDIDATE;
            term++;
            votedFor = id;
            voteTerm = term;
        }
        for (int voter : voters()) {
            if (voter != id) {
                send(new VoteRequest(id, voter, voteTerm, log.lastIndex(), log.lastTerm(), preVote, transfer));
            }
        }
        if (isVoter() && votes.record(id, true, majority()) == VoteTally.Outcome.WON) {
            won();
        }
    }

    private void becomeLeader() {
        role = Role.LEADER;
        leader = id;
        wake();
        votes.clear();
        electionElapsed = 0;
        heartbeatElapsed = 0;
        replication.start(voters());
        // Raft section 5.4.2: entries of earlier terms commit only with one of the leader's own term.
        log.append(new Entry(term, log.lastIndex() + 1, Entry.NO_DATA));
        replication.sendAppends(term, log.committed());
        maybeCommit();
    }

    private void onAppendRequest(AppendRequest request) {
        followLeader(request.from());
        long match = log.receiveAppend(request.prevIndex(), request.prevTerm(), request.entries(),
                request.commitIndex());
        long hint = match >= 0 ? 0 : log.conflictHint(request.prevIndex(), request.prevTerm());
        send(new AppendResponse(id, request.from(), term, match >= 0, Math.max(match, 0), hint));
    }

    /** A leader's snapshot: the runtime restores the state machine from it when this log is replaced by it. */
    private void onInstallSnapshot(InstallSnapshot request) {
        followLeader(request.from());
        if (log.receiveSnapshot(request.snapshot())) {
            tracker.restore(request.snapshot());
        }
        send(new AppendResponse(id, request.from(), term, true, log.committed(), 0));
    }

    /** The runtime holds a snapshot of the state machine through {@code raftIndex}: the log may drop those entries. */
    public void compact(long raftIndex) {
        Invariant.check(raftIndex <= tracker.appliedIndex(), "compaction to %s past the applied %s", raftIndex,
                tracker.appliedIndex());
        log.compact(raftIndex);
    }

    /**
     * The state machine holds the tails of the entries through {@code raftIndex}, which it applied: the log keeps
     * their heads only from now on ({@link Entry#withHeldTail}), so that payloads do not stay on the heap until the
     * next snapshot; one sent again is read back from the machine.
     */
    public void releaseTails(long raftIndex) {
        log.releaseTails(Math.min(raftIndex, tracker.appliedIndex()));
    }

    private void onHeartbeat(Heartbeat heartbeat) {
        followLeader(heartbeat.from());
        log.commitTo(Math.min(heartbeat.commitIndex(), log.lastIndex()));
        quiesced = heartbeat.quiesce();
        send(new HeartbeatResponse(id, heartbeat.from(), term, heartbeat.commitIndex()));
    }

    private void followLeader(int from) {
        if (role != Role.FOLLOWER || leader != from) {
            becomeFollower(term, from);
        }
        electionElapsed = 0;
        leaderDown = false;
        quiesced = false;
    }

    private void onAppendResponse(AppendResponse response) {
        if (role == Role.LEADER && replication.onAppendResponse(response, term, log.committed())) {
            maybeCommit();
            replication.sendCommit(term, log.committed());
        }
        if (role == Role.LEADER) {
            maybeSendTimeoutNow();
            maybeStepDownRemoved();
        }
    }

    private void onHeartbeatResponse(HeartbeatResponse response) {
        if (role == Role.LEADER) {
            replication.onHeartbeatResponse(response, term, log.committed());
        }
    }

    /** Whether {@link #ready()} has anything for the runtime to do. */
    public boolean hasReady() {
        return tracker.hasReady(hardState());
    }

    /** What the runtime must do now (see {@link Ready}); call {@link #advance} once it is done. */
    public Ready ready() {
        return tracker.ready(hardState());
    }

    /** The runtime carried out {@code ready}: its hard state and entries are persisted, its entries applied. */
    public void advance(Ready ready) {
        if (tracker.advance(ready) && role == Role.LEADER && maybeCommit()) {
            replication.sendCommit(term, log.committed());
        }
        if (role == Role.LEADER) {
            maybeStepDownRemoved();
        }
    }
}
