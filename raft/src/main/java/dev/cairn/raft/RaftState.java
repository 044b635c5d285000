package dev.cairn.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A replica's state and the transitions every role shares (following, the election timer, what it persists):
 * the part of {@link RaftNode} that its message handlers build on. Package-private; not thread-safe.
 */
abstract class RaftState {

    final int id;
    final List<Integer> voters;
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

    RaftState(int id, List<Integer> voters, RaftConfig config, RandomGenerator random, RaftLog log,
            HardState hardState, long appliedIndex) {
        this.id = id;
        this.voters = List.copyOf(voters);
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

    int majority() {
        return voters.size() / 2 + 1;
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
}
