package dev.cairn.raft;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Configuration entries: how a group changes its voters, one voter added or removed at a time (Ongaro's thesis,
 * section 4.1). A configuration entry holds the group's whole new voter list; every replica uses the latest one in
 * its log as soon as it has it, committed or not, and falls back to the one before when a new leader's entries
 * replace it. With one voter changed at a time any majority of the old voters and any majority of the new ones
 * overlap, so two leaders cannot be elected in one term across the change.
 *
 * <p>The entry's bytes start with {@link #MAGIC}, which {@link RaftNode#propose} refuses in a command, so a state
 * machine's command can never be mistaken for one; state machines see a configuration entry as a no-op (an entry with
 * no data, {@link #forMachine}).
 */
public final class Membership {

    /** The most voters a group may have (a bound for decoding; Kafka's replication factors are far below it). */
    public static final int VOTERS_MAX = 64;
    static final byte[] MAGIC = {(byte) 0xCA, (byte) 0x1E, (byte) 0xC0, (byte) 0xF1};

    private Membership() {
    }

    /**
     * Checks that {@code next} differs from {@code current} by exactly one voter added or removed, without
     * duplicates or replica id 0.
     *
     * @throws IllegalArgumentException when it does not
     */
    static void checkOneChange(List<Integer> current, List<Integer> next) {
        Set<Integer> before = new HashSet<>(current);
        Set<Integer> after = new HashSet<>(next);
        int added = 0;
        for (int voter : after) {
            added += before.contains(voter) ? 0 : 1;
        }
        int removed = 0;
        for (int voter : before) {
            removed += after.contains(voter) ? 0 : 1;
        }
        if (after.size() != next.size() || after.contains(RaftNode.NONE) || added + removed != 1
                || next.size() > VOTERS_MAX) {
            throw new IllegalArgumentException("voters " + next + " are not one voter away from " + current);
        }
    }

    /** The entry bytes of a configuration whose voters are {@code voters}. */
    static byte[] encode(List<Integer> voters) {
        Invariant.check(!voters.isEmpty() && voters.size() <= VOTERS_MAX, "a configuration of %s voters",
                voters.size());
        ByteBuffer out = ByteBuffer.allocate(MAGIC.length + Integer.BYTES * (1 + voters.size()));
        out.put(MAGIC).putInt(voters.size());
        voters.forEach(out::putInt);
        return out.array();
    }

    /** The voters a configuration entry names, or null when {@code entry} is not one. */
    public static List<Integer> voters(Entry entry) {
        byte[] head = entry.head();
        if (entry.hasTail() || !startsWithMagic(head, head.length)) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(head, MAGIC.length, head.length - MAGIC.length);
        if (in.remaining() < Integer.BYTES) {
            return null;
        }
        int count = in.getInt();
        if (count < 1 || count > VOTERS_MAX || in.remaining() != count * Integer.BYTES) {
            return null;
        }
        List<Integer> voters = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            voters.add(in.getInt());
        }
        return List.copyOf(voters);
    }

    /** Whether {@code entry} is a configuration entry. */
    public static boolean isConfiguration(Entry entry) {
        return voters(entry) != null;
    }

    /** Whether a command of {@code head} then {@code tail} starts as a configuration entry does (refused). */
    static boolean reserved(byte[] head, ByteBuffer tail) {
        if (head.length >= MAGIC.length) {
            return startsWithMagic(head, head.length);
        }
        byte[] first = new byte[Math.min(MAGIC.length, head.length + tail.remaining())];
        System.arraycopy(head, 0, first, 0, head.length);
        tail.duplicate().get(first, head.length, first.length - head.length);
        return startsWithMagic(first, first.length);
    }

    private static boolean startsWithMagic(byte[] bytes, int length) {
        if (length < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code entries} as a state machine sees them: each configuration entry replaced by a no-op of its index and
     * term; the list itself when it holds none.
     */
    public static List<Entry> forMachine(List<Entry> entries) {
        List<Entry> seen = null;
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            if (isConfiguration(entry)) {
                if (seen == null) {
                    seen = new ArrayList<>(entries);
                }
                seen.set(i, forMachine(entry));
            }
        }
        return seen == null ? entries : seen;
    }

    /** {@code entry} as a state machine sees it: a no-op in place of a configuration entry. */
    public static Entry forMachine(Entry entry) {
        return isConfiguration(entry) ? new Entry(entry.term(), entry.raftIndex(), Entry.NO_DATA) : entry;
    }
}
