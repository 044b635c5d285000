package dev.cairn.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A replica's Raft log as the core sees it: the snapshot it starts after ({@code snapshot}: every entry through
 * its index is compacted away), the entries since, in memory, and how far the runtime has persisted them
 * ({@code stableIndex}). Reading entries back from storage instead of holding them comes with the runtime
 * (docs/multi-raft.md). Single-threaded, like the rest of the core.
 */
final class RaftLog {

    /** {@link #termAt} of an index compacted into the snapshot: its term is no longer known. */
    static final long COMPACTED = -2;

    private final List<Entry> entries = new ArrayList<>();
    /** The configuration entries after the snapshot, by index: their voters ({@link Membership}). */
    private final TreeMap<Long, List<Integer>> configurations = new TreeMap<>();
    /** The voters a replica started with, which stand until a snapshot or entry names others. */
    private final List<Integer> startingVoters;
    private SnapshotMeta snapshot;
    /** The highest index known committed (Raft's commitIndex); never moves back. */
    private long committed;
    /** The last index the runtime has persisted. Entries after it are handed out by {@link #unstable()}. */
    private long stableIndex;
    /** Entries through this index hold no tail in memory ({@link #releaseTails}). */
    private long tailsReleasedThrough;

    /**
     * A log restored from what the runtime persisted: a snapshot, the entries after it, in order, all stable, and
     * the commit index it had persisted.
     */
    RaftLog(SnapshotMeta snapshot, List<Entry> persisted, long committed, List<Integer> startingVoters) {
        this.startingVoters = List.copyOf(startingVoters);
        this.snapshot = snapshot;
        for (Entry entry : persisted) {
            Invariant.check(entry.raftIndex() == lastIndex() + 1, "persisted entry %s out of place",
                    entry.raftIndex());
            Invariant.check(entry.term() >= lastTerm(), "persisted terms go back at %s", entry.raftIndex());
            add(entry);
        }
        stableIndex = lastIndex();
        Invariant.check(committed <= lastIndex(), "commit index %s beyond the log's end %s", committed, lastIndex());
        this.committed = Math.max(committed, snapshot.raftIndex());
    }

    long committed() {
        return committed;
    }

    /** Raises the commit index to {@code raftIndex}, which a majority holds; never lowers it. */
    void commitTo(long raftIndex) {
        Invariant.check(raftIndex <= lastIndex(), "commit %s beyond the log's end %s", raftIndex, lastIndex());
        committed = Math.max(committed, raftIndex);
    }

    /**
     * A follower takes a leader's append (Raft figure 2, AppendEntries): the index of the last entry it now holds in
     * agreement with the leader, or -1 when its log does not match at {@code prevIndex}. Everything through the
     * commit index agrees already.
     */
    long receiveAppend(long prevIndex, long prevTerm, List<Entry> leaderEntries, long leaderCommit) {
        if (prevIndex < committed) {
            return committed;
        }
        if (!matches(prevIndex, prevTerm)) {
            return -1;
        }
        long last = appendFromLeader(prevIndex, leaderEntries);
        commitTo(Math.min(leaderCommit, last));
        return last;
    }

    /**
     * A follower takes a leader's snapshot: true when the state machine must be restored from it (this log held no
     * entry of its index and term, and is replaced by it); false when the snapshot tells it nothing new or its
     * entries are here already (they commit and apply as entries).
     */
    boolean receiveSnapshot(SnapshotMeta leaderSnapshot) {
        if (leaderSnapshot.raftIndex() <= committed) {
            return false;
        }
        if (matches(leaderSnapshot.raftIndex(), leaderSnapshot.term())) {
            commitTo(leaderSnapshot.raftIndex());
            return false;
        }
        entries.clear();
        configurations.clear();
        snapshot = leaderSnapshot;
        stableIndex = leaderSnapshot.raftIndex();
        committed = leaderSnapshot.raftIndex();
        return true;
    }

    SnapshotMeta snapshot() {
        return snapshot;
    }

    long lastIndex() {
        return snapshot.raftIndex() + entries.size();
    }

    long lastTerm() {
        return termAt(lastIndex());
    }

    long stableIndex() {
        return stableIndex;
    }

    /**
     * The term of the entry at {@code raftIndex}: 0 for index 0 (before the log), the snapshot's term at its index,
     * {@link #COMPACTED} below it, -1 past the end.
     */
    long termAt(long raftIndex) {
        if (raftIndex == snapshot.raftIndex()) {
            return snapshot.term();
        }
        if (raftIndex < snapshot.raftIndex()) {
            return raftIndex == 0 ? 0 : COMPACTED;
        }
        if (raftIndex > lastIndex()) {
            return -1;
        }
        return entryAt(raftIndex).term();
    }

    Entry entryAt(long raftIndex) {
        return entries.get((int) (raftIndex - snapshot.raftIndex() - 1));
    }

    boolean matches(long raftIndex, long term) {
        return termAt(raftIndex) == term;
    }

    /** Raft section 5.4.1: a candidate's log is at least as up to date as this one. */
    boolean isUpToDate(long candidateLastIndex, long candidateLastTerm) {
        return candidateLastTerm > lastTerm() || candidateLastTerm == lastTerm() && candidateLastIndex >= lastIndex();
    }

    /**
     * Where a leader whose append did not match at {@code prevIndex} should try next: the highest index, not below
     * the commit index, whose term is at most {@code prevTerm} (it skips a whole term of conflicting entries at once).
     */
    long conflictHint(long prevIndex, long prevTerm) {
        long hint = Math.min(prevIndex - 1, lastIndex());
        while (hint > committed && hint > snapshot.raftIndex() && termAt(hint) > prevTerm) {
            hint--;
        }
        return hint;
    }

    /** A leader appends its own entry. */
    void append(Entry entry) {
        Invariant.check(entry.raftIndex() == lastIndex() + 1, "append at %s to a log ending at %s",
                entry.raftIndex(), lastIndex());
        Invariant.check(entry.term() >= lastTerm(), "append of term %s after term %s", entry.term(), lastTerm());
        add(entry);
    }

    private void add(Entry entry) {
        entries.add(entry);
        List<Integer> voters = Membership.voters(entry);
        if (voters != null) {
            configurations.put(entry.raftIndex(), voters);
        }
    }

    /** The voters in force after the entry at {@code raftIndex} (at least the snapshot's index): the latest named. */
    List<Integer> votersAt(long raftIndex) {
        Map.Entry<Long, List<Integer>> named = configurations.floorEntry(raftIndex);
        if (named != null) {
            return named.getValue();
        }
        return snapshot.voters().isEmpty() ? startingVoters : snapshot.voters();
    }

    /** The voters in force: those of the latest configuration entry, committed or not. */
    List<Integer> voters() {
        return votersAt(lastIndex());
    }

    /** The index of the latest configuration entry in the log, or 0 when it holds none after its snapshot. */
    long lastConfigurationIndex() {
        return configurations.isEmpty() ? 0 : configurations.lastKey();
    }

    /**
     * A follower takes a leader's entries that follow {@code prevIndex}, which must match: entries it already holds
     * are kept, the first conflicting one and everything after it are replaced (Raft figure 2, AppendEntries step 3).
     * The caller never truncates below the commit index: a committed entry never conflicts. Entries at or below the
     * snapshot are committed and skipped. Returns the index of the last entry taken.
     */
    private long appendFromLeader(long prevIndex, List<Entry> leaderEntries) {
        for (Entry entry : leaderEntries) {
            long at = entry.raftIndex();
            Invariant.check(at == prevIndex + 1, "leader's entries not contiguous at %s", at);
            prevIndex = at;
            if (at <= snapshot.raftIndex()) {
                continue;
            }
            if (at <= lastIndex()) {
                if (termAt(at) == entry.term()) {
                    continue;
                }
                Invariant.check(at > committed, "conflict at committed index %s (commit %s)", at, committed);
                entries.subList((int) (at - snapshot.raftIndex() - 1), entries.size()).clear();
                configurations.tailMap(at, true).clear();
                stableIndex = Math.min(stableIndex, at - 1);
            }
            add(entry);
        }
        return prevIndex;
    }

    /** Entries from {@code fromIndex} (after the snapshot) on, up to {@code bytesMax} (at least one if any). */
    List<Entry> slice(long fromIndex, int bytesMax) {
        Invariant.check(fromIndex > snapshot.raftIndex(), "slice from compacted index %s", fromIndex);
        List<Entry> slice = new ArrayList<>();
        int bytes = 0;
        for (long at = fromIndex; at <= lastIndex(); at++) {
            Entry entry = entryAt(at);
            if (!slice.isEmpty() && bytes + entry.sizeBytes() > bytesMax) {
                break;
            }
            slice.add(entry);
            bytes += entry.sizeBytes();
        }
        return slice;
    }

    /** Entries from {@code fromIndex} through {@code toIndex}, inclusive, all after the snapshot. */
    List<Entry> between(long fromIndex, long toIndex) {
        Invariant.check(fromIndex > snapshot.raftIndex(), "entries from compacted index %s", fromIndex);
        long base = snapshot.raftIndex() + 1;
        return List.copyOf(entries.subList((int) (fromIndex - base), (int) (toIndex - base + 1)));
    }

    /** Entries not yet persisted. */
    List<Entry> unstable() {
        return between(stableIndex + 1, lastIndex());
    }

    /** The runtime persisted the entries handed out, through {@code raftIndex} of {@code term}. */
    void stableTo(long raftIndex, long term) {
        if (termAt(raftIndex) == term && raftIndex > stableIndex) {
            stableIndex = raftIndex;
        }
    }

    /**
     * Through {@code raftIndex} (committed and persisted entries only), each entry with its tail in memory keeps its
     * head alone, the tail now held by the state machine ({@link Entry#withHeldTail}).
     */
    void releaseTails(long raftIndex) {
        long through = Math.min(raftIndex, Math.min(committed, stableIndex));
        for (long at = Math.max(tailsReleasedThrough, snapshot.raftIndex()) + 1; at <= through; at++) {
            int position = (int) (at - snapshot.raftIndex() - 1);
            Entry entry = entries.get(position);
            if (entry.tail().hasRemaining()) {
                entries.set(position, Entry.withHeldTail(entry.term(), at, entry.head(), entry.tail().remaining()));
            }
        }
        tailsReleasedThrough = Math.max(tailsReleasedThrough, through);
    }

    /** Drops the entries through {@code raftIndex}, which a snapshot of the state machine now holds. */
    void compact(long raftIndex) {
        Invariant.check(raftIndex <= stableIndex, "compaction to %s past the persisted %s", raftIndex, stableIndex);
        Invariant.check(raftIndex <= committed, "compaction to %s past the commit index %s", raftIndex, committed);
        if (raftIndex <= snapshot.raftIndex()) {
            return;
        }
        SnapshotMeta next = new SnapshotMeta(raftIndex, termAt(raftIndex), votersAt(raftIndex));
        entries.subList(0, (int) (raftIndex - snapshot.raftIndex())).clear();
        configurations.headMap(raftIndex, true).clear();
        snapshot = next;
    }
}
