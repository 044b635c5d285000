package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link RaftWal} keeps in memory of one live group, to check what it is asked to append, to tell a snapshot
 * the log holds from one that replaces it, to know when the group stops holding a segment, and to carry its latest
 * hard state and snapshot records forward before their segment is deleted. It holds no entry data: the terms of the
 * entries after the snapshot as runs (one per term, so a handful), and where its latest records are. It can be
 * rebuilt from the group's recovered state.
 */
final class WalGroup {

    /** A location: the group has no such record. */
    static final long NO_SEGMENT = -1;
    /** A location: the record is in the batch, not yet written to a segment. */
    static final long IN_BATCH = Long.MAX_VALUE;

    /** The entries from {@code firstIndex} to the next run's first index (or the last index) are of {@code term}. */
    private record TermRun(long firstIndex, long term) {
    }

    final int group;
    HardState hardState = HardState.INITIAL;
    /** The segment of the latest hard state record, {@link #NO_SEGMENT} or {@link #IN_BATCH}. */
    long hardStateSegment = NO_SEGMENT;
    SnapshotMeta snapshot = SnapshotMeta.NONE;
    /** The segment of the latest snapshot record, {@link #NO_SEGMENT} or {@link #IN_BATCH}. */
    long snapshotSegment = NO_SEGMENT;
    /** The highest entry index this group appended to the batch, 0 when none. */
    long batchEntryIndexMax;
    /** Whether the group is on the ledger's list of groups with records in the batch. */
    boolean inBatch;
    /** Set once the group is removed, so that its records in the batch no longer hold a segment. */
    boolean removed;

    private long lastIndex;
    private final List<TermRun> runs = new ArrayList<>();

    WalGroup(int group) {
        this.group = group;
    }

    /** A group as {@link RaftWal#open} recovered it. */
    static WalGroup recovered(int group, RaftWal.GroupState state, long hardStateSegment, long snapshotSegment) {
        WalGroup recovered = new WalGroup(group);
        recovered.hardState = state.hardState();
        recovered.hardStateSegment = hardStateSegment;
        recovered.snapshot = state.snapshot();
        recovered.snapshotSegment = snapshotSegment;
        recovered.lastIndex = state.snapshot().raftIndex();
        for (Entry entry : state.entries()) {
            recovered.onEntry(entry.raftIndex(), entry.term());
        }
        return recovered;
    }

    long lastIndex() {
        return lastIndex;
    }

    /**
     * Refuses entries a replay would take for a gap: each must come after the snapshot and at most one past the
     * entry before it (an index at or below the last replaces the entries from there on).
     */
    void checkEntries(List<Entry> entries) {
        long last = lastIndex;
        for (Entry entry : entries) {
            if (entry.raftIndex() <= snapshot.raftIndex() || entry.raftIndex() > last + 1) {
                throw new IllegalArgumentException("entry " + entry.raftIndex() + " of group " + group
                        + " does not follow snapshot " + snapshot + " and the last index " + last);
            }
            last = entry.raftIndex();
        }
    }

    /** The group's log now ends at {@code raftIndex}, an entry of {@code term} (checked by checkEntries). */
    void onEntry(long raftIndex, long term) {
        while (!runs.isEmpty() && runs.get(runs.size() - 1).firstIndex() >= raftIndex) {
            runs.remove(runs.size() - 1);
        }
        if (runs.isEmpty() || runs.get(runs.size() - 1).term() != term) {
            runs.add(new TermRun(raftIndex, term));
        }
        lastIndex = raftIndex;
    }

    /** Whether the log holds an entry of the snapshot's index and term after the current snapshot. */
    boolean holds(SnapshotMeta next) {
        if (next.raftIndex() <= snapshot.raftIndex() || next.raftIndex() > lastIndex) {
            return false;
        }
        for (int r = runs.size() - 1; r >= 0; r--) {
            if (runs.get(r).firstIndex() <= next.raftIndex()) {
                return runs.get(r).term() == next.term();
            }
        }
        throw new IllegalStateException("no term run holds index " + next.raftIndex() + " of group " + group);
    }

    /** The snapshot moves to {@code next}: the entries through it go, and all of them unless {@code held}. */
    void onSnapshot(SnapshotMeta next, boolean held) {
        if (held) {
            List<TermRun> kept = new ArrayList<>();
            for (int r = 0; r < runs.size(); r++) {
                long end = r + 1 < runs.size() ? runs.get(r + 1).firstIndex() - 1 : lastIndex;
                if (end > next.raftIndex()) {
                    kept.add(new TermRun(Math.max(runs.get(r).firstIndex(), next.raftIndex() + 1), runs.get(r).term()));
                }
            }
            runs.clear();
            runs.addAll(kept);
        } else {
            runs.clear();
            lastIndex = next.raftIndex();
        }
        snapshot = next;
    }
}
