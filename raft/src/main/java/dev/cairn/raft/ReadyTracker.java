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

    ReadyTracker(RaftLog log, List<Message> outbox, HardState persisted, long appliedIndex) {
        Invariant.check(appliedIndex <= persisted.commitIndex(), "applied %s beyond commit %s", appliedIndex,
                persisted.commitIndex());
        this.log = log;
        this.outbox = outbox;
        this.persisted = persisted;
        this.appliedIndex = appliedIndex;
    }

    boolean hasReady(HardState current) {
        return !outbox.isEmpty() || !current.equals(persisted) || log.stableIndex() < log.lastIndex()
                || applicableIndex(current) > appliedIndex;
    }

    Ready ready(HardState current) {
        List<Message> messages = List.copyOf(outbox);
        outbox.clear();
        long applicable = applicableIndex(current);
        List<Entry> committed = applicable > appliedIndex ? log.between(appliedIndex + 1, applicable) : List.of();
        return new Ready(current.equals(persisted) ? null : current, log.unstable(), messages, committed);
    }

    /** The runtime carried out {@code ready}; true when it persisted entries (the leader may commit more). */
    boolean advance(Ready ready) {
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

    /** Committed entries this replica has persisted may be applied. */
    private long applicableIndex(HardState current) {
        return Math.min(current.commitIndex(), log.stableIndex());
    }
}
