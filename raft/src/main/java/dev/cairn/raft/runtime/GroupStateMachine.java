package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.SnapshotMeta;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;

/**
 * What one group's committed entries are applied to. The engine calls it on the group's loop thread only, in log
 * order, once per entry (an entry without data is a new leader's no-op and is applied too, so the machine knows
 * its applied index).
 *
 * <p>Snapshots (optional: the defaults support none). A machine that keeps its state durably may let the engine
 * drop log entries: it makes a snapshot of its state at an applied index, keeps it, and calls
 * {@link RaftEngine#compact}. From then on the engine may ask it for that snapshot's bytes to send to a follower
 * that needs entries no longer in the log ({@link #readSnapshot}); it keeps the snapshot until it calls
 * {@code compact} again with a later one. On a follower, the engine hands a leader's snapshot over piece by piece
 * ({@link #beginRestore}, {@link #writeRestore}) and then tells the machine to take it as its whole state
 * ({@link #finishRestore}), before it applies the entries that follow it. An exception from any of these stops the
 * engine (fail-stop), so a machine throws only when it cannot go on (a storage failure).
 *
 * <p>Tails (optional: by default the engine's log keeps every entry whole). A machine that {@link #holdsTails}
 * stores the tail of each entry itself, so that a payload is written once per replica: on the leader it decides, as
 * a proposal enters the log, what the entry carries ({@link #onPropose}: say a placement header as the head and the
 * payload as the tail); on every replica it writes the tails of new entries before the engine logs their heads
 * ({@link #onAppend}); and it
 * reads a tail back ({@link #readTail}) when the engine must send an entry whose tail it no longer has in memory
 * (after a restart). Only entries with a tail are affected; the others are logged whole as before.
 */
public interface GroupStateMachine {

    /**
     * The last index this machine holds at start: entries after it are applied again from the Raft log (0 for a
     * machine that keeps nothing across restarts).
     */
    long appliedIndex();

    /** Applies one committed entry; what it returns completes the proposal of that entry, on its leader. */
    Object apply(Entry entry);

    /** What a proposal enters the log as: a head and a tail ({@link Entry#NO_TAIL}: none). */
    record Proposal(byte[] head, ByteBuffer tail) {
    }

    /** What {@link #onPropose} may read of the leader's log: its term and its entries. Loop thread, that call only. */
    interface LeaderLog {
        long term();

        /** The index of the log's last entry (the proposal gets the next one, if it enters the log). */
        long lastIndex();

        /** The entries after {@code raftIndex} (at least the snapshot's index), in memory, tails held or not. */
        List<Entry> entriesAfter(long raftIndex);
    }

    /** Whether this machine stores the tails of its entries (so the engine's log keeps only their heads). */
    default boolean holdsTails() {
        return false;
    }

    /**
     * Leader, loop thread, in log order: what a proposal enters the log as, called just before it gets its index;
     * the default keeps it as proposed. A machine that {@link #holdsTails} must return a tail only where it will
     * store it. Throwing {@link ProposalRefusedException} refuses the proposal. When the core then refuses the entry
     * anyway (no longer leading, busy), {@link #onProposeDropped} follows.
     */
    default Proposal onPropose(LeaderLog log, byte[] head, ByteBuffer tail) {
        return new Proposal(head, tail);
    }

    /** The proposal {@link #onPropose} just shaped did not enter the log. */
    default void onProposeDropped() {
    }

    /**
     * Every replica, loop thread, log order: entries (in memory, tails included) about to be written to the engine's
     * log; a machine that {@link #holdsTails} stores their tails now, where it can. They may replace entries from the
     * first one's index on (a follower whose uncommitted entries a new leader overwrote). Returns which entries'
     * tails it stored (bit i for {@code entries.get(i)}): the engine's log keeps only their heads. An entry with a
     * tail it did not store (say its place is not reached yet) is logged whole, and the machine stores it as it
     * applies. Null: none stored.
     */
    default BitSet onAppend(List<Entry> entries) {
        return null;
    }

    /**
     * The tail of an entry the engine's log kept without it, as stored; null when the machine no longer has it
     * (compacted away): the engine then does not send the entry, and a snapshot must catch the follower up.
     */
    default ByteBuffer readTail(Entry entry) {
        throw new UnsupportedOperationException("this state machine holds no tails");
    }

    /** Bytes of a snapshot, and whether they end it. */
    record SnapshotPiece(byte[] data, boolean last) {
    }

    /**
     * Up to {@code maxBytes} of the kept snapshot {@code snapshot} from {@code offset}, or null when the machine no
     * longer keeps that snapshot (a later compaction replaced it: the core will name the later one).
     */
    default SnapshotPiece readSnapshot(SnapshotMeta snapshot, long offset, int maxBytes) {
        return null;
    }

    /** A leader's snapshot starts arriving; any earlier one that did not finish is dropped. */
    default void beginRestore(SnapshotMeta snapshot) {
        throw new UnsupportedOperationException("this state machine takes no snapshots");
    }

    /** The next bytes of the snapshot being restored, at {@code offset}. */
    default void writeRestore(SnapshotMeta snapshot, long offset, byte[] data) {
        throw new UnsupportedOperationException("this state machine takes no snapshots");
    }

    /**
     * The machine's state is now the snapshot's (every byte of it was written): durably so when this returns, since
     * the engine then records in its log that the group's log starts after it.
     */
    default void finishRestore(SnapshotMeta snapshot) {
        throw new UnsupportedOperationException("this state machine takes no snapshots");
    }
}
