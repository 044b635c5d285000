package dev.cairn.raft;

import dev.cairn.raft.Message.TimeoutNow;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * A replica's state and the transitions every role shares (following, the election timer, what it persists):
 * the part of {@link RaftNode} that its message handlers build on. Package-private; not thread-safe.
 */
abstract class RaftState {

    final int id;
    final RaftConfig config;
    final RandomGenerator random;
    final RaftLog log;
    final List<Message> outbox = new ArrayList<>();
    final Replication replication;
    final VoteTally votes = new VoteTally();
    final ReadyTracker tracker;

    long term;
    int votedFor;
    Role role = Role.FOLLOWER;
    int leader = RaftNode.NONE;
    int electionElapsed;
    int heartbeatElapsed;
    int randomizedElectionTicks;
    /** Ticks left in which {@link #campaignOnNextTick} stands again every other tick while no leader is known. */
    int eagerTicksLeft;
    boolean quiesced;
    boolean leaderDown;
    /** As leader: the follower leadership is being handed to (thesis 3.10), or NONE. */
    int transferee = RaftNode.NONE;
    int transferElapsed;
    boolean timeoutNowSent;

    RaftState(int id, RaftConfig config, RandomGenerator random, RaftLog log,
            HardState hardState, long appliedIndex) {
        this.id = id;
        this.config = config;
        this.random = random;
        this.log = log;
        this.replication = new Replication(id, config, log, outbox);
        this.tracker = new ReadyTracker(log, outbox, hardState, appliedIndex);
        this.term = hardState.term();
        this.votedFor = hardState.votedFor();
    }

    /** This replica's view of its group now. */
    public RaftStatus status() {
        return new RaftStatus(id, role, leader, term, log.committed(), log.lastIndex(), quiesced);
    }

    /**
     * As leader, the highest index follower {@code peer} is known to hold (Raft figure 2's matchIndex; a new leader
     * counts 0 until the follower answers); 0 when this replica does not lead or {@code peer} is not a follower.
     */
    public long matchIndex(int peer) {
        return replication.matchIndex(peer);
    }

    /** Whether {@code RaftNode.propose} takes a proposal now: this replica leads, hands nothing over, has room. */
    public boolean takesProposals() {
        return role == Role.LEADER && transferee == RaftNode.NONE
                && log.lastIndex() - log.committed() < config.uncommittedEntriesMax();
    }

    /** The entries after {@code raftIndex} this replica holds in memory (from its snapshot's on, if that is later). */
    public List<Entry> entriesAfter(long raftIndex) {
        long from = Math.max(raftIndex, log.snapshot().raftIndex()) + 1;
        return from > log.lastIndex() ? List.of() : log.between(from, log.lastIndex());
    }

    /** The term of this replica's entry at {@code raftIndex} (-1 past its end, -2 compacted away). */
    public long termAt(long raftIndex) {
        return log.termAt(raftIndex);
    }

    void wake() {
        quiesced = false;
        replication.resetQuiesceCount();
    }

    void becomeFollower(long newTerm, int newLeader) {
        if (newTerm > term) {
            term = newTerm;
            votedFor = RaftNode.NONE;
        }
        role = Role.FOLLOWER;
        leader = newLeader;
        transferee = RaftNode.NONE;
        leaderDown = false;
        quiesced = false;
        replication.stop();
        votes.clear();
        resetElectionTimer();
    }

    /** Heard from a live leader within an election timeout, or from a quiet one whose broker is not reported down. */
    boolean inLease() {
        if (role == Role.LEADER) {
            return true;
        }
        return leader != RaftNode.NONE && !leaderDown && (quiesced || electionElapsed < config.electionTicks());
    }

    /** The group's voters now: those of the latest configuration in the log, committed or not. */
    public List<Integer> voters() {
        return log.voters();
    }

    /** The voters in force after the entry at {@code raftIndex} (not below the log's start). */
    public List<Integer> votersAt(long raftIndex) {
        return log.votersAt(raftIndex);
    }

    /** Whether the latest configuration in the log is not known committed yet. */
    public boolean configurationPending() {
        return log.lastConfigurationIndex() > log.committed();
    }

    /** Whether this replica votes in its group now (a replica being added learns it from the leader's log). */
    boolean isVoter() {
        return voters().contains(id);
    }

    /**
     * Whether this replica may stand for election: it is a voter in its latest configuration, or in its committed one
     * (a leader that proposed its own removal and lost its leadership before that committed may have the only log
     * that can finish the change; it counts votes by the latest configuration, so it never counts its own).
     */
    boolean mayCampaign() {
        return isVoter() || log.votersAt(log.committed()).contains(id);
    }

    int majority() {
        return voters().size() / 2 + 1;
    }

    /**
     * Stands for election (pre-vote first) on the next tick instead of after the randomized timeout, and again every
     * other tick for one election timeout while no leader is known (its first requests may reach replicas that do not
     * run the group yet): how a new group's preferred replica becomes its first leader at once. As safe as any
     * timeout; without effect once a leader is known.
     */
    public void campaignOnNextTick() {
        if (role != Role.LEADER && leader == RaftNode.NONE) {
            eagerTicksLeft = config.electionTicks();
            electionElapsed = Math.max(electionElapsed, randomizedElectionTicks - 1);
        }
    }

    /** Counts a tick of a replica that does not lead: whether it stands for election now. */
    boolean electionDue() {
        if (++electionElapsed >= randomizedElectionTicks) {
            return true;
        }
        if (eagerTicksLeft > 0) {
            eagerTicksLeft--;
            return leader == RaftNode.NONE && role != Role.CANDIDATE && eagerTicksLeft % 2 == 0;
        }
        return false;
    }

    void resetElectionTimer() {
        electionElapsed = 0;
        randomizedElectionTicks = config.electionTicks() + random.nextInt(config.electionTicks());
    }

    void send(Message message) {
        outbox.add(message);
    }

    HardState hardState() {
        return new HardState(term, votedFor, log.committed());
    }

    /**
     * Hands this leader's leadership to {@code target} (Ongaro's thesis, section 3.10): proposals are refused
     * ({@link #REFUSED_TRANSFERRING}) while the target catches up, then it is told to campaign at once. Given up
     * after an election timeout. False when this replica does not lead or {@code target} is not another voter.
     */
    public boolean transferLeadership(int target) {
        if (role != Role.LEADER || target == id || !voters().contains(target)) {
            return false;
        }
        wake();
        transferee = target;
        transferElapsed = 0;
        timeoutNowSent = false;
        replication.sendAppends(term, log.committed());
        maybeSendTimeoutNow();
        return true;
    }

    /** The replica this leader is handing its leadership to, or RaftNode.NONE. */
    public int transferee() {
        return transferee;
    }

    /** The transferee holds every entry of this leader's log: it may campaign now. */
    void maybeSendTimeoutNow() {
        if (transferee != RaftNode.NONE && !timeoutNowSent && replication.matchIndex(transferee) == log.lastIndex()) {
            timeoutNowSent = true;
            send(new TimeoutNow(id, transferee, term));
        }
    }

    /**
     * Changes the group's voters to {@code next}, which must differ from the current ones by exactly one voter
     * added or removed ({@link Membership}): appends the configuration entry, which is in force here at once and on
     * each follower as it gets it. Returns its index, which commits or is lost like any proposal, or a REFUSED_ code
     * ({@link RaftNode#REFUSED_CHANGE_PENDING} while an earlier change is not committed). A leader that removes itself
     * leads until the change commits, without counting itself, then steps down.
     *
     * @throws IllegalArgumentException when {@code next} is not one voter away from the current voters
     */
    public long proposeVoters(List<Integer> next) {
        Membership.checkOneChange(voters(), next);
        if (role != Role.LEADER) {
            return RaftNode.REFUSED_NOT_LEADER;
        }
        if (transferee != RaftNode.NONE) {
            return RaftNode.REFUSED_TRANSFERRING;
        }
        if (log.lastIndex() - log.committed() >= config.uncommittedEntriesMax()) {
            return RaftNode.REFUSED_BUSY;
        }
        if (log.lastConfigurationIndex() > log.committed() || log.termAt(log.committed()) != term) {
            return RaftNode.REFUSED_CHANGE_PENDING;
        }
        wake();
        long raftIndex = log.lastIndex() + 1;
        log.append(new Entry(term, raftIndex, Membership.encode(next)));
        replication.follow(voters());
        replication.sendAppends(term, log.committed());
        maybeCommit();
        return raftIndex;
    }

    /**
     * As leader, starts sending the log to {@code peer}, which is not a voter, so that it catches up before a
     * configuration makes it one ({@link #proposeVoters}): adding a voter that lacks the log would leave the group
     * unable to commit while it catches up if another voter is down. It counts toward no majority, and is forgotten
     * when this leadership ends. False when this replica does not lead, {@code peer} is a voter or itself, or
     * {@link Membership#VOTERS_MAX} other learners catch up already.
     */
    public boolean catchUp(int peer) {
        if (role != Role.LEADER || peer == id || peer == RaftNode.NONE || voters().contains(peer)) {
            return false;
        }
        if (replication.peers().contains(peer)) {
            return true;
        }
        if (!replication.addLearner(peer)) {
            return false;
        }
        wake();
        replication.sendAppends(term, log.committed());
        return true;
    }

    /** As leader, the replicas it sends its log to (voters but itself, and those catching up); else empty. */
    public Set<Integer> replicatingTo() {
        return role == Role.LEADER ? Set.copyOf(replication.peers()) : Set.of();
    }

    /** A leader whose removal from the voters has committed steps down; it no longer stands for election. */
    void maybeStepDownRemoved() {
        if (!isVoter() && log.lastConfigurationIndex() <= log.committed()) {
            replication.sendCommit(term, log.committed());
            int successor = replication.caughtUpFollower(log.lastIndex());
            if (successor != RaftNode.NONE) {
                // The voters left need not wait an election timeout: the most caught-up one campaigns at once.
                send(new TimeoutNow(id, successor, term));
            }
            becomeFollower(term, RaftNode.NONE);
        }
    }

    /** Raft section 5.3-5.4: commit the highest index a majority holds, if it is of the current term. */
    boolean maybeCommit() {
        long candidate = replication.majorityMatchIndex(majority(), isVoter());
        if (candidate > log.committed() && log.termAt(candidate) == term) {
            log.commitTo(candidate);
            return true;
        }
        return false;
    }
}
