package dev.cairn.raft;

import java.util.List;

/**
 * What a replica has handed its runtime and what the runtime confirmed: the hard state last persisted and the last
 * entry applied. It builds each {@link Ready} from the difference.
 */
final class ReadyTracker {

    private final RaftLog log;
    private final List<Message> outbox;
    private HardState persisted;
    private long appliedIndex;
    /** A leader's snapshot this replica took and the runtime has not yet restored, or null. */
    private SnapshotMeta pendingSnapshot;

    ReadyTracker(RaftLog log, List<Message> outbox, HardState persisted, long appliedIndex) {
        Invariant.check(appliedIndex <= persisted.commitIndex(), "applied %s beyond commit %s", appliedIndex,
                persisted.commitIndex());
        this.log = log;
        this.outbox = outbox;
        this.persisted = persisted;
        this.appliedIndex = appliedIndex;
    }

    boolean hasReady(HardState current) {
        return pendingSnapshot != null || !outbox.isEmpty() || !current.equals(persisted)
                || log.stableIndex() < log.lastIndex() || applicableIndex(current) > appliedIndex;
    }

    Ready ready(HardState current) {
        List<Message> messages = List.copyOf(outbox);
        outbox.clear();
        long applicable = applicableIndex(current);
        long appliedOrRestored = pendingSnapshot == null ? appliedIndex
                : Math.max(appliedIndex, pendingSnapshot.raftIndex());
        List<Entry> committed = applicable > appliedOrRestored ? log.between(appliedOrRestored + 1, applicable)
                : List.of();
        return new Ready(pendingSnapshot, current.equals(persisted) ? null : current, log.unstable(), messages,
                committed);
    }

    /** The runtime carried out {@code ready}; true when it persisted entries (the leader may commit more). */
    boolean advance(Ready ready) {
        if (ready.snapshot() != null) {
            appliedIndex = Math.max(appliedIndex, ready.snapshot().raftIndex());
            if (ready.snapshot().equals(pendingSnapshot)) {
                pendingSnapshot = null;
            }
        }
        if (ready.hardState() != null) {
            persisted = ready.hardState();
        }
        if (!ready.committed().isEmpty()) {
            appliedIndex = ready.committed().get(ready.committed().size() - 1).raftIndex();
        }
        if (ready.entries().isEmpty()) {
            return false;
        }
        Entry last = ready.entries().get(ready.entries().size() - 1);
        log.stableTo(last.raftIndex(), last.term());
        return true;
    }

    /** The log was replaced by a leader's snapshot: the runtime must restore its state machine from it. */
    void restore(SnapshotMeta snapshot) {
        pendingSnapshot = snapshot;
    }

    long appliedIndex() {
        return appliedIndex;
    }

    /** Committed entries this replica has persisted may be applied. */
    private long applicableIndex(HardState current) {
        return Math.min(current.commitIndex(), log.stableIndex());
    }
}
