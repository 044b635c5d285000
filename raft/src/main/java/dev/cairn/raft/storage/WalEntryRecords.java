package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * The three forms of an entry record in a {@link RaftWal} (its class comment has the record's frame). After type and
 * group, each holds long term, long raftIndex, int length, then:
 * <ul>
 * <li>type 2, whole: the entry's bytes ({@code length} of them);
 * <li>type 6, tail held: the head only (the rest of the record), {@code length} being the tail's. Its state machine
 * stores the tail itself (a produced batch, written into the partition's segment as the entry is appended), so the
 * payload is written once. Replay gives the entry back with its tail held ({@code Entry.withHeldTail}); the runtime
 * reads it from the machine when it must send the entry to a follower;
 * <li>type 7, head apart: the head ({@code length} bytes) then the tail (the rest), for an entry with a tail its
 * machine did not store (not yet: it stores it as the entry applies).
 * </ul>
 */
final class WalEntryRecords {
    static final byte TYPE_ENTRY = 2;
    static final byte TYPE_ENTRY_TAIL_HELD = 6;
    static final byte TYPE_ENTRY_HEAD_APART = 7;
    /** Type, group, term, index and the length field: what every entry record holds before its bytes. */
    static final int BODY_BYTES_BASE = 1 + 4 + 8 + 8 + 4;
    /** The fixed fields after type and group. */
    private static final int FIELDS_BYTES = 8 + 8 + 4;

    private WalEntryRecords() {
    }

    /** Whether {@code tailsHeld} (or null: none) says entry {@code entry}'s tail is the machine's. */
    static boolean held(BitSet tailsHeld, int entry) {
        return tailsHeld != null && tailsHeld.get(entry);
    }

    static boolean isEntry(byte type) {
        return type == TYPE_ENTRY || type == TYPE_ENTRY_TAIL_HELD || type == TYPE_ENTRY_HEAD_APART;
    }

    /** The record body's length: the head alone when the machine holds the tail. */
    static int bodyBytes(Entry entry, boolean tailHeld) {
        return BODY_BYTES_BASE + (tailHeld ? entry.head().length : entry.dataLength());
    }

    /** Writes the record body (type first) for {@code entry} of {@code group}. */
    static void write(ByteBuffer body, int group, Entry entry, boolean tailHeld) {
        if (tailHeld) {
            body.put(TYPE_ENTRY_TAIL_HELD).putInt(group).putLong(entry.term()).putLong(entry.raftIndex())
                    .putInt(entry.dataLength() - entry.head().length).put(entry.head());
            return;
        }
        body.put(entry.hasTail() ? TYPE_ENTRY_HEAD_APART : TYPE_ENTRY).putInt(group).putLong(entry.term())
                .putLong(entry.raftIndex()).putInt(entry.hasTail() ? entry.head().length : entry.dataLength());
        entry.writeData(body);
    }

    /** The entry a record body holds after its type and group, or null when its fields do not add up. */
    static Entry read(byte type, ByteBuffer body) {
        if (body.remaining() < FIELDS_BYTES) {
            return null;
        }
        long term = body.getLong();
        long raftIndex = body.getLong();
        int length = body.getInt();
        if (term < 1 || raftIndex < 1) {
            return null;
        }
        if (type == TYPE_ENTRY_TAIL_HELD) {
            return length < 1 ? null : Entry.withHeldTail(term, raftIndex, bytes(body, body.remaining()), length);
        }
        if (type == TYPE_ENTRY_HEAD_APART) {
            if (length < 0 || length >= body.remaining()) {
                return null;
            }
            byte[] head = bytes(body, length);
            return new Entry(term, raftIndex, head, ByteBuffer.wrap(bytes(body, body.remaining())));
        }
        return length != body.remaining() ? null : new Entry(term, raftIndex, bytes(body, length));
    }

    private static byte[] bytes(ByteBuffer in, int length) {
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }
}
