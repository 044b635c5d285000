package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.SnapshotMeta;

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
 */
public interface GroupStateMachine {

    /**
     * The last index this machine holds at start: entries after it are applied again from the Raft log (0 for a
     * machine that keeps nothing across restarts).
     */
    long appliedIndex();

    /** Applies one committed entry; what it returns completes the proposal of that entry, on its leader. */
    Object apply(Entry entry);

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
