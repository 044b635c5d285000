package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;

/**
 * What one group's committed entries are applied to. The engine calls it on the group's loop thread only, in log
 * order, once per entry (an entry without data is a new leader's no-op and is applied too, so the machine knows
 * its applied index).
 */
public interface GroupStateMachine {

    /**
     * The last index this machine holds at start: entries after it are applied again from the Raft log (0 for a
     * machine that keeps nothing across restarts).
     */
    long appliedIndex();

    /** Applies one committed entry; what it returns completes the proposal of that entry, on its leader. */
    Object apply(Entry entry);
}
