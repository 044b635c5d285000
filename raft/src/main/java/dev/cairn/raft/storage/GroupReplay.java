package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One group's state being rebuilt from its records, in log order, by {@link WalReplay}.
 *
 * <p>A group whose first records were in segments {@link RaftWal} deleted is replayed from the middle of its
 * history: its first remaining entry record need not follow a snapshot record, and its snapshot record may come
 * after entries that follow it (a copy carried forward to the end of the log). Such a group starts
 * <em>unanchored</em>: the entries it holds are known exactly from {@code base + 1} on, but what came before them is
 * not. It becomes anchored (its entries then start right after its snapshot, as in a log replayed from its first
 * segment) when a snapshot record settles it. What makes the unanchored rules give the same state as a replay of the
 * whole log, given what deletion guarantees (every entry record above the group's final snapshot, and a record of
 * that snapshot and of its latest hard state, are in the remaining segments; snapshots only move forward), is
 * argued at each rule.
 */
final class GroupReplay {

    /** The latest hard state record, or {@link HardState#INITIAL}. */
    HardState hardState = HardState.INITIAL;
    /** The segment holding the latest hard state record, or -1 when there is none. */
    long hardStateSegment = -1;
    /** The segment holding the latest snapshot record, or -1 when there is none. */
    long snapshotSegment = -1;

    private boolean anchored;
    private SnapshotMeta snapshot = SnapshotMeta.NONE;
    /** The index just before {@code entries.get(0)}; the snapshot's index while anchored. */
    private long base;
    private final List<Entry> entries = new ArrayList<>();

    /** A group whose first record is in the log ({@code anchored}), or may have been in a deleted segment. */
    GroupReplay(boolean anchored) {
        this.anchored = anchored;
    }

    void onHardState(HardState next, long segment) {
        hardState = next;
        hardStateSegment = segment;
    }

    /**
     * An entry record replaces the group's entries from its index on; a gap means the log is broken. Returns whether
     * it replaced any entry (a truncation: the records of those entries are dead).
     */
    boolean onEntry(Entry entry) throws IOException {
        long raftIndex = entry.raftIndex();
        boolean replaces = !entries.isEmpty() && raftIndex <= base + entries.size();
        if (!anchored && raftIndex > snapshot.raftIndex() && (entries.isEmpty() || raftIndex <= base)) {
            // The entries before this one may be in deleted segments: from here on the log is known again.
            // (A whole-log replay truncates after raftIndex too, so what is kept above raftIndex - 1 agrees.)
            entries.clear();
            base = raftIndex - 1;
        }
        long position = raftIndex - base;
        if (raftIndex <= snapshot.raftIndex() || position < 1 || position > entries.size() + 1L) {
            throw new IOException("entry " + raftIndex + " does not follow snapshot " + snapshot + " and "
                    + entries.size() + " entries after index " + base + ": the log has a gap");
        }
        entries.subList((int) (position - 1), entries.size()).clear();
        entries.add(entry);
        return replaces;
    }

    /**
     * A snapshot record (type 3) of a snapshot the log held, or the group's current snapshot again (a copy carried
     * forward): the entries through it go, the ones after it stay. In a log written before RaftWal told the two
     * kinds apart, a snapshot the entries do not hold drops them all, as before.
     */
    void onSnapshot(SnapshotMeta next, long segment) {
        snapshotSegment = segment;
        if (next.equals(snapshot)) {
            // The same snapshot again: the log already starts after it, and the entries after it stay.
            return;
        }
        long position = next.raftIndex() - base;
        if (position >= 1 && position <= entries.size()) {
            // The entries known hold the snapshot's index: exactly what a whole-log replay does, and from here on
            // the entries start right after the snapshot.
            if (entries.get((int) (position - 1)).term() == next.term()) {
                entries.subList(0, (int) position).clear();
            } else {
                entries.clear();
            }
            anchored = true;
            base = next.raftIndex();
        } else if (!anchored && !entries.isEmpty() && position < 1) {
            // The entry at the snapshot's index, if any, was in a deleted segment. RaftWal writes a snapshot its
            // log does not hold as a replacement (type 5), so this one held it: every entry known stays (all are
            // after it). When they start right after it, nothing before them is missing any more.
            anchored = position == 0;
        } else if (anchored || !entries.isEmpty()) {
            // Anchored, the log does not hold it (a log written before type 5 existed), or unanchored and past the
            // entries known, whose end is the log's end: a whole-log replay drops every entry, as here.
            entries.clear();
            anchored = true;
            base = next.raftIndex();
        }
        // Left: unanchored with no entry known. Entries of deleted segments may lie between this snapshot and the
        // next entry record, which sets the base (a whole-log replay holds them until a later snapshot drops them).
        snapshot = next;
    }

    /** A snapshot record (type 5) of a snapshot the log did not hold: it replaces every entry. */
    void onSnapshotReplacingLog(SnapshotMeta next, long segment) {
        snapshotSegment = segment;
        entries.clear();
        snapshot = next;
        base = next.raftIndex();
        anchored = true;
    }

    /** What the log held of this group; the entries must start right after the snapshot. */
    RaftWal.GroupState build() throws IOException {
        if (!entries.isEmpty() && entries.get(0).raftIndex() != snapshot.raftIndex() + 1) {
            throw new IOException("the log holds entries from " + entries.get(0).raftIndex() + " after snapshot "
                    + snapshot + ": the entries between are missing");
        }
        return new RaftWal.GroupState(hardState, snapshot, List.copyOf(entries));
    }
}
