package dev.cairn.raft;

import java.util.Arrays;
import java.util.Objects;

/**
 * One Raft log entry: the term of the leader that created it, its position, and the command it carries. An entry
 * with no data is the no-op a new leader appends to commit the entries of earlier terms (Raft section 5.4.2).
 * The data array is never changed once the entry exists.
 */
public record Entry(long term, long raftIndex, byte[] data) {

    static final byte[] NO_DATA = new byte[0];

    public Entry {
        Invariant.check(term >= 1, "an entry's term is at least 1, not %s", term);
        Invariant.check(raftIndex >= 1, "an entry's index is at least 1, not %s", raftIndex);
        Objects.requireNonNull(data, "data");
    }

    /** Bytes this entry counts for against the size bounds of one append message. */
    int sizeBytes() {
        return data.length + Long.BYTES * 2;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Entry entry && entry.term == term && entry.raftIndex == raftIndex
                && Arrays.equals(entry.data, data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(term, raftIndex, Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        return "Entry[term=" + term + ", raftIndex=" + raftIndex + ", " + data.length + " bytes]";
    }
}
