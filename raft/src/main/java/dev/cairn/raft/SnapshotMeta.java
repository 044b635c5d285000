package dev.cairn.raft;

import java.util.List;

/**
 * Where a snapshot of a group's state machine stands: it holds the effect of every entry through {@code raftIndex},
 * the last of which is of {@code term}. {@link #NONE} (index 0) is the state before any entry.
 *
 * <p>{@code voters} is the group's configuration at that index (the last membership change at or before it, see
 * {@link Membership}), carried with the snapshot because the entry that made it is compacted away; empty when not
 * known (a snapshot recorded before configurations were carried: the replica's starting voters stand). A snapshot is
 * identified by its index and term alone: two metas of one index and term are equal whatever voters they carry.
 */
public record SnapshotMeta(long raftIndex, long term, List<Integer> voters) {

    public static final SnapshotMeta NONE = new SnapshotMeta(0, 0);

    public SnapshotMeta {
        Invariant.check(raftIndex >= 0 && term >= 0, "snapshot at %s of term %s", raftIndex, term);
        Invariant.check(raftIndex == 0 || term >= 1, "snapshot at %s of term %s", raftIndex, term);
        voters = List.copyOf(voters);
        Invariant.check(voters.size() <= Membership.VOTERS_MAX, "a snapshot with %s voters", voters.size());
    }

    /** A snapshot whose configuration is not known (the replica's starting voters stand). */
    public SnapshotMeta(long raftIndex, long term) {
        this(raftIndex, term, List.of());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SnapshotMeta meta && meta.raftIndex == raftIndex && meta.term == term;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(raftIndex) * 31 + Long.hashCode(term);
    }
}
