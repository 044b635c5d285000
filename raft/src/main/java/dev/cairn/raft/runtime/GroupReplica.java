package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.RaftStatus;
import dev.cairn.raft.Role;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** One group's replica on its loop: the core, the state machine it applies to, and the proposals in flight. */
final class GroupReplica {
    final int group;
    final List<Integer> voters;
    final RaftNode node;
    final GroupStateMachine machine;
    /** Proposals this replica made as leader, by Raft index, until an entry of that index applies. */
    private final Map<Long, Pending> pending = new HashMap<>();
    /** The last entry applied (or snapshot restored) to the machine. */
    long appliedIndex;
    /** Where the log starts: the last compaction or restored snapshot. */
    long snapshotIndex;
    /** In its loop's dirty list: something happened to it since its Ready was last looked at. */
    boolean dirty;
    private int publishedLeader = -1;
    private long publishedTerm = -1;
    private boolean publishedServing;

    private record Pending(long term, CompletableFuture<Object> future) {
    }

    GroupReplica(int group, List<Integer> voters, RaftNode node, GroupStateMachine machine, long appliedIndex,
            long snapshotIndex) {
        this.appliedIndex = appliedIndex;
        this.snapshotIndex = snapshotIndex;
        this.group = group;
        this.voters = List.copyOf(voters);
        this.node = node;
        this.machine = machine;
    }

    /** Proposes on the core; the future completes when the entry applies, or fails with the refusal. */
    void propose(byte[] data, CompletableFuture<Object> future) {
        long raftIndex = node.propose(data);
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
            result = machine.apply(entry);
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
        return new ProposalRefusedException(ProposalRefusedException.Reason.REPLACED, node.status().leader(),
                "group " + group + ": entry " + raftIndex + " was replaced by a later leader's");
    }

    /** Fails every proposal in flight (the group is removed or the engine closes). */
    void failPending(ProposalRefusedException.Reason reason, String why) {
        for (Pending waiting : pending.values()) {
            waiting.future().completeExceptionally(new ProposalRefusedException(reason, RaftNode.NONE, why));
        }
        pending.clear();
    }

    /** Tells the listener when the leader, the term or whether this replica serves changed since it last did. */
    void publish(LeadershipListener listener) {
        RaftStatus status = node.status();
        boolean serving = status.role() == Role.LEADER && node.termAt(status.commitIndex()) == status.term();
        if (status.leader() != publishedLeader || status.term() != publishedTerm || serving != publishedServing) {
            publishedLeader = status.leader();
            publishedTerm = status.term();
            publishedServing = serving;
            listener.onLeadership(group, status.leader(), status.term(), serving);
        }
    }
}
