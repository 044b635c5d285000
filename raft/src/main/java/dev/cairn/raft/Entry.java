package dev.cairn.raft;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One Raft log entry: the term of the leader that created it, its position, and the command it carries. An entry
 * with no data is the no-op a new leader appends to commit the entries of earlier terms (Raft section 5.4.2).
 *
 * <p>The command's bytes are {@code head} followed by {@code tail}: a proposer may hand a large payload it already
 * holds (a produced record batch) as the tail, so that it is not copied into one array on the way in. Entries that
 * come from a frame or from the write-ahead log have everything in {@code head} and an empty tail. Neither the array
 * nor the tail's bytes are ever changed once the entry exists.
 */
public record Entry(long term, long raftIndex, byte[] head, ByteBuffer tail) {

    static final byte[] NO_DATA = new byte[0];
    /** The tail of an entry whose bytes are all in its head. */
    public static final ByteBuffer NO_TAIL = ByteBuffer.allocate(0).asReadOnlyBuffer();

    public Entry {
        Invariant.check(term >= 1, "an entry's term is at least 1, not %s", term);
        Invariant.check(raftIndex >= 1, "an entry's index is at least 1, not %s", raftIndex);
        Objects.requireNonNull(head, "head");
        tail = tail.remaining() == 0 ? NO_TAIL : tail.slice().asReadOnlyBuffer();
    }

    /** An entry whose bytes are all in {@code data}. */
    public Entry(long term, long raftIndex, byte[] data) {
        this(term, raftIndex, data, NO_TAIL);
    }

    /** The command's length in bytes, head and tail. */
    public int dataLength() {
        return head.length + tail.remaining();
    }

    /** The command's bytes in one array: the head itself when the tail is empty, otherwise a copy of both. */
    public byte[] data() {
        if (tail.remaining() == 0) {
            return head;
        }
        byte[] joined = Arrays.copyOf(head, dataLength());
        tail.duplicate().get(joined, head.length, tail.remaining());
        return joined;
    }

    /** Writes the command's bytes, head then tail, into {@code out} (which must have room for them). */
    public void writeData(ByteBuffer out) {
        out.put(head).put(tail.duplicate());
    }

    /** Bytes this entry counts for against the size bounds of one append message. */
    int sizeBytes() {
        return dataLength() + Long.BYTES * 2;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Entry entry && entry.term == term && entry.raftIndex == raftIndex
                && Arrays.equals(entry.data(), data());
    }

    @Override
    public int hashCode() {
        return Objects.hash(term, raftIndex, Arrays.hashCode(data()));
    }

    @Override
    public String toString() {
        return "Entry[term=" + term + ", raftIndex=" + raftIndex + ", " + dataLength() + " bytes]";
    }
}
