package dev.cairn.raft;

/**
 * Where a snapshot of a group's state machine stands: it holds the effect of every entry through {@code raftIndex},
 * the last of which is of {@code term}. {@link #NONE} (index 0) is the state before any entry.
 */
public record SnapshotMeta(long raftIndex, long term) {

    public static final SnapshotMeta NONE = new SnapshotMeta(0, 0);

    public SnapshotMeta {
        Invariant.check(raftIndex >= 0 && term >= 0, "snapshot at %s of term %s", raftIndex, term);
        Invariant.check(raftIndex == 0 || term >= 1, "snapshot at %s of term %s", raftIndex, term);
    }
}
