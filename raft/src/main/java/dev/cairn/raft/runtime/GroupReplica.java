package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Membership;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.RaftStatus;
import dev.cairn.raft.Ready;
import dev.cairn.raft.Role;
import dev.cairn.raft.SnapshotMeta;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One group's replica on its loop: the core, the state machine it applies to, and the proposals in flight. The core
 * and the leadership it publishes belong to the loop thread; {@link #apply} runs on the loop thread or, with apply
 * threads, on its {@link ApplyLane}.
 */
final class GroupReplica {
    final int group;
    final RaftNode node;
    final GroupStateMachine machine;
    /** Proposals this replica made as leader, by Raft index, until an entry of that index applies. */
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /** The last entry applied (or snapshot restored) to the machine. */
    volatile long appliedIndex;
    /** Applies off the loop thread, or null when the loop applies itself. */
    ApplyLane lane;
    /** Leads but has not yet applied through its first commit: the lane asks the loop to publish again. */
    volatile boolean awaitingApply;
    /** The term in which this replica, leading, had applied through the commit of an entry of that term. */
    private long servingTerm = -1;
    /** Where the log starts: the last compaction or restored snapshot. */
    long snapshotIndex;
    /** In its loop's dirty list: something happened to it since its Ready was last looked at. */
    boolean dirty;
    private int publishedLeader = -1;
    private long publishedTerm = -1;
    private boolean publishedServing;
    /** What status readers on any thread see: replaced by the loop thread only, when anything in it changed. */
    private volatile GroupStatus published;

    private record Pending(long term, CompletableFuture<Object> future) {
    }

    /** The core's log as {@link GroupStateMachine#onPropose} may read it. */
    private final GroupStateMachine.LeaderLog leaderLog = new GroupStateMachine.LeaderLog() {
        @Override
        public long term() {
            return node.status().term();
        }

        @Override
        public long lastIndex() {
            return node.status().lastIndex();
        }

        @Override
        public List<Entry> entriesAfter(long raftIndex) {
            return Membership.forMachine(node.entriesAfter(raftIndex));
        }
    };

    GroupReplica(int group, RaftNode node, GroupStateMachine machine, long appliedIndex,
            long snapshotIndex) {
        this.appliedIndex = appliedIndex;
        this.snapshotIndex = snapshotIndex;
        this.group = group;
        this.node = node;
        this.machine = machine;
    }

    /** Proposes on the core; the future completes when the entry applies, or fails with the refusal. */
    void propose(byte[] head, ByteBuffer tail, CompletableFuture<Object> future) {
        GroupStateMachine.Proposal shaped = new GroupStateMachine.Proposal(head, tail);
        try {
            if (node.takesProposals()) {   // otherwise the core refuses it below, with the reason
                shaped = machine.onPropose(leaderLog, head, tail);
            }
        } catch (ProposalRefusedException e) {
            future.completeExceptionally(e);
            return;
        }
        long raftIndex;
        try {
            raftIndex = node.propose(shaped.head(), shaped.tail());
        } catch (IllegalArgumentException e) {
            machine.onProposeDropped();
            future.completeExceptionally(e);
            return;
        }
        if (raftIndex < 0) {
            machine.onProposeDropped();
        }
        track(raftIndex, future);
    }

    /**
     * Proposes the group's next configuration ({@link RaftNode#proposeVoters}); the future completes when it
     * applies, or fails with the refusal (BUSY while an earlier change is not committed) or an
     * IllegalArgumentException for voters that are not one change away.
     */
    void proposeVoters(List<Integer> next, CompletableFuture<Object> future) {
        long raftIndex;
        try {
            raftIndex = node.proposeVoters(next);
        } catch (IllegalArgumentException e) {
            future.completeExceptionally(e);
            return;
        }
        if (raftIndex == RaftNode.REFUSED_CHANGE_PENDING) {
            future.completeExceptionally(new ProposalRefusedException(ProposalRefusedException.Reason.BUSY,
                    RaftNode.NONE, "group " + group + " has a configuration change or its leader's first entry"
                    + " to commit first"));
            return;
        }
        track(raftIndex, future);
    }

    /** Fails {@code future} with a refusal code's reason, or keeps it until the entry at that index applies. */
    private void track(long raftIndex, CompletableFuture<Object> future) {
        if (raftIndex == RaftNode.REFUSED_NOT_LEADER) {
            RaftStatus status = node.status();
            future.completeExceptionally(new ProposalRefusedException(ProposalRefusedException.Reason.NOT_LEADER,
                    status.leader(), "replica " + status.id() + " does not lead group " + group));
        } else if (raftIndex == RaftNode.REFUSED_TRANSFERRING) {
            // The leadership is moving: the client goes where it moves to.
            future.completeExceptionally(new ProposalRefusedException(ProposalRefusedException.Reason.NOT_LEADER,
                    node.transferee(), "group " + group + " is handing its leadership to replica "
                    + node.transferee()));
        } else if (raftIndex == RaftNode.REFUSED_BUSY) {
            future.completeExceptionally(new ProposalRefusedException(ProposalRefusedException.Reason.BUSY,
                    RaftNode.NONE, "group " + group + " holds its maximum of uncommitted entries"));
        } else {
            Pending replaced = pending.put(raftIndex, new Pending(node.status().term(), future));
            if (replaced != null) {
                replaced.future().completeExceptionally(replacedAt(raftIndex));
            }
        }
    }

    /** Applies a committed entry and completes the proposal that made it, if this replica did. */
    void apply(Entry entry) {
        Pending waiting = pending.remove(entry.raftIndex());
        if (waiting != null && waiting.term() != entry.term()) {
            waiting.future().completeExceptionally(replacedAt(entry.raftIndex()));
            waiting = null;
        }
        Object result;
        try {
            result = machine.apply(Membership.forMachine(entry));
            appliedIndex = entry.raftIndex();
        } catch (RuntimeException e) {
            if (waiting != null) {
                waiting.future().completeExceptionally(e);
            }
            throw e;
        }
        if (waiting != null) {
            waiting.future().complete(result);
        }
    }

    private ProposalRefusedException replacedAt(long raftIndex) {
        // No leader hint: this may run on an apply thread, which must not touch the core.
        return new ProposalRefusedException(ProposalRefusedException.Reason.REPLACED, RaftNode.NONE,
                "group " + group + ": entry " + raftIndex + " was replaced by a later leader's");
    }

    /**
     * Adds what a Ready asks to persist to the loop's log batch (loop thread): a restored snapshot first, on the
     * machine too. {@code storeTails}: a machine that holds tails stores them now (the loop does not fsync: with
     * fsync on, tails stay in the loop's log, where one fsync per turn covers every group, and the machines store
     * them as they apply, rather than forcing a segment per group).
     */
    void persist(Ready ready, LoopLog log, boolean storeTails) {
        if (ready.snapshot() != null) {
            if (lane != null) {
                // A restore replaces the machine's state: no apply of an older entry may run beside it or after it.
                lane.awaitIdle();
            }
            machine.finishRestore(ready.snapshot());
            log.appendSnapshot(group, ready.snapshot());
            snapshotIndex = ready.snapshot().raftIndex();
            appliedIndex = Math.max(appliedIndex, ready.snapshot().raftIndex());
        }
        BitSet tailsHeld = null;
        if (storeTails && machine.holdsTails() && !ready.entries().isEmpty()) {
            tailsHeld = machine.onAppend(Membership.forMachine(ready.entries()));
        }
        log.append(group, ready.hardState(), ready.entries(), tailsHeld);
    }

    /**
     * Loop thread: a machine that holds tails has stored those of every entry it applied (as appended, or as
     * applied), so the core lets them go from memory ({@link RaftNode#releaseTails}); sent again, they are read back.
     */
    void releaseAppliedTails() {
        if (machine.holdsTails()) {
            node.releaseTails(appliedIndex);
        }
    }

    /** Drops the core's entries through {@code raftIndex}, which the machine holds a snapshot of; its meta. */
    SnapshotMeta compact(long raftIndex) {
        if (raftIndex <= snapshotIndex || raftIndex > appliedIndex) {
            throw new IllegalArgumentException("group " + group + " cannot compact to " + raftIndex
                    + ": its log starts after " + snapshotIndex + " and " + appliedIndex + " is applied");
        }
        SnapshotMeta snapshot = new SnapshotMeta(raftIndex, node.termAt(raftIndex), node.votersAt(raftIndex));
        node.compact(raftIndex);
        snapshotIndex = raftIndex;
        publishStatus(node.status());
        return snapshot;
    }

    /** What this replica knows of its followers' logs: their match indexes if it leads (loop thread). */
    GroupReplication replication() {
        RaftStatus status = node.status();
        Map<Integer, Long> matchIndex = new HashMap<>();
        boolean leading = status.role() == Role.LEADER;
        if (leading) {
            for (int voter : node.replicatingTo()) {
                if (voter != status.id()) {
                    matchIndex.put(voter, node.matchIndex(voter));
                }
            }
        }
        return new GroupReplication(leading, status.term(), status.commitIndex(), status.lastIndex(), matchIndex);
    }

    /** Fails every proposal in flight (the group is removed or the engine closes). */
    void failPending(ProposalRefusedException.Reason reason, String why) {
        for (Pending waiting : pending.values()) {
            waiting.future().completeExceptionally(new ProposalRefusedException(reason, RaftNode.NONE, why));
        }
        pending.clear();
    }

    /**
     * Tells the listener when the leader, the term or whether this replica serves changed since it last did. A
     * leader serves once it has committed an entry of its term and applied through it: its machine then holds
     * every entry committed before it led.
     */
    void publish(LeadershipListener listener) {
        RaftStatus status = node.status();
        boolean leads = status.role() == Role.LEADER;
        if (leads && servingTerm != status.term() && node.termAt(status.commitIndex()) == status.term()
                && appliedIndex >= status.commitIndex()) {
            servingTerm = status.term();
        }
        boolean serving = leads && servingTerm == status.term();
        awaitingApply = leads && !serving;
        if (status.leader() != publishedLeader || status.term() != publishedTerm || serving != publishedServing) {
            publishedLeader = status.leader();
            publishedTerm = status.term();
            publishedServing = serving;
            listener.onLeadership(group, status.leader(), status.term(), serving);
        }
        publishStatus(status);
    }

    /** Publishes the group's status if it changed (loop thread): one allocation per Ready at most, none per entry. */
    private void publishStatus(RaftStatus status) {
        GroupStatus next = new GroupStatus(status.role(), status.leader(), status.term(), status.commitIndex(),
                appliedIndex, snapshotIndex, publishedServing, node.voters(), node.configurationPending());
        if (!next.equals(published)) {
            published = next;
        }
    }

    /**
     * The status last published, or null before the first (any thread). Apply threads move the applied index
     * between the loop's publications, so a later one is read here rather than waiting for the group's next Ready.
     */
    GroupStatus status() {
        GroupStatus last = published;
        long applied = appliedIndex;
        return last == null || applied <= last.appliedIndex() ? last : last.withApplied(applied);
    }
}
