package dev.cairn.raft;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One Raft log entry: the term of the leader that created it, its position, and the command it carries. An entry
 * with no data is the no-op a new leader appends to commit the entries of earlier terms (Raft section 5.4.2).
 *
 * <p>The command's bytes are {@code head} followed by {@code tail}: a proposer may hand a large payload it already
 * holds (a produced record batch) as the tail, so that it is not copied into one array on the way in, and a state
 * machine that stores tails itself ({@code GroupStateMachine.holdsTails}) keeps them out of the engine's log. An
 * entry read back from that log then has its tail held elsewhere: {@code heldTailBytes} says how long it is, and
 * {@link #withTail} puts it back once read from the machine. Neither the array nor the tail's bytes are ever changed
 * once the entry exists.
 */
public record Entry(long term, long raftIndex, byte[] head, ByteBuffer tail, int heldTailBytes) {

    static final byte[] NO_DATA = new byte[0];
    /** The tail of an entry whose bytes are all in its head. */
    public static final ByteBuffer NO_TAIL = ByteBuffer.allocate(0).asReadOnlyBuffer();

    public Entry {
        Invariant.check(term >= 1, "an entry's term is at least 1, not %s", term);
        Invariant.check(raftIndex >= 1, "an entry's index is at least 1, not %s", raftIndex);
        Objects.requireNonNull(head, "head");
        Invariant.check(heldTailBytes >= 0, "a held tail of %s bytes", heldTailBytes);
        Invariant.check(heldTailBytes == 0 || tail.remaining() == 0, "a tail both held and present");
        // Not made read-only: readers of a heap tail get its array (CRC32C and channel writes take fast paths).
        tail = tail.remaining() == 0 ? NO_TAIL : tail.slice();
    }

    /** An entry whose bytes are {@code head} then {@code tail}, all in memory. */
    public Entry(long term, long raftIndex, byte[] head, ByteBuffer tail) {
        this(term, raftIndex, head, tail, 0);
    }

    /** An entry whose bytes are all in {@code data}. */
    public Entry(long term, long raftIndex, byte[] data) {
        this(term, raftIndex, data, NO_TAIL, 0);
    }

    /** An entry read back from a log that kept only its head: its tail of {@code tailBytes} is the machine's. */
    public static Entry withHeldTail(long term, long raftIndex, byte[] head, int tailBytes) {
        return new Entry(term, raftIndex, head, NO_TAIL, tailBytes);
    }

    /** Whether this entry's tail is not in memory (read it from the machine that holds it). */
    public boolean tailHeld() {
        return heldTailBytes > 0;
    }

    /** Whether the command has bytes beyond its head, in memory or held. */
    public boolean hasTail() {
        return heldTailBytes > 0 || tail.remaining() > 0;
    }

    /** This entry with its held tail back in memory. */
    public Entry withTail(ByteBuffer readBack) {
        Invariant.check(readBack.remaining() == heldTailBytes, "tail of %s bytes read back for %s held",
                readBack.remaining(), heldTailBytes);
        return new Entry(term, raftIndex, head, readBack, 0);
    }

    /** The command's length in bytes, head and tail. */
    public int dataLength() {
        return head.length + tail.remaining() + heldTailBytes;
    }

    /** The command's bytes in one array: the head itself when the tail is empty, otherwise a copy of both. */
    public byte[] data() {
        requireTail();
        if (tail.remaining() == 0) {
            return head;
        }
        byte[] joined = Arrays.copyOf(head, dataLength());
        tail.duplicate().get(joined, head.length, tail.remaining());
        return joined;
    }

    /** Writes the command's bytes, head then tail, into {@code out} (which must have room for them). */
    public void writeData(ByteBuffer out) {
        requireTail();
        out.put(head).put(tail.duplicate());
    }

    private void requireTail() {
        if (heldTailBytes > 0) {
            throw new IllegalStateException(this + ": its tail is held by the state machine, not in memory");
        }
    }

    /** Bytes this entry counts for against the size bounds of one append message. */
    int sizeBytes() {
        return dataLength() + Long.BYTES * 2;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Entry entry) || entry.term != term || entry.raftIndex != raftIndex) {
            return false;
        }
        if (entry.heldTailBytes > 0 || heldTailBytes > 0) {
            return entry.heldTailBytes == heldTailBytes && Arrays.equals(entry.head, head);
        }
        return Arrays.equals(entry.data(), data());
    }

    @Override
    public int hashCode() {
        return Objects.hash(term, raftIndex, dataLength());
    }

    @Override
    public String toString() {
        return "Entry[term=" + term + ", raftIndex=" + raftIndex + ", " + dataLength() + " bytes"
                + (heldTailBytes > 0 ? ", tail held" : "") + "]";
    }
}
