package dev.cairn.raft;

import java.util.ArrayList;
import java.util.List;

/**
 * A replica's Raft log as the core sees it: every entry since index 1, in memory, and how far the runtime has
 * persisted it ({@code stableIndex}). This first version keeps the whole log; snapshots and reading old entries back
 * from storage come with the runtime (docs/multi-raft.md). Single-threaded, like the rest of the core.
 */
final class RaftLog {

    private final List<Entry> entries = new ArrayList<>();
    /** The last index the runtime has persisted. Entries after it are handed out by {@link #unstable()}. */
    private long stableIndex;

    /** A log restored from what the runtime persisted: entries 1..n, in order, all stable. */
    RaftLog(List<Entry> persisted) {
        for (Entry entry : persisted) {
            Invariant.check(entry.raftIndex() == entries.size() + 1L, "persisted entry %s out of place",
                    entry.raftIndex());
            Invariant.check(entries.isEmpty() || entry.term() >= lastTerm(), "persisted terms go back at %s",
                    entry.raftIndex());
            entries.add(entry);
        }
        stableIndex = entries.size();
    }

    long lastIndex() {
        return entries.size();
    }

    long lastTerm() {
        return termAt(lastIndex());
    }

    long stableIndex() {
        return stableIndex;
    }

    /** The term of the entry at {@code raftIndex}: 0 for index 0 (before the log), -1 past the end. */
    long termAt(long raftIndex) {
        if (raftIndex == 0) {
            return 0;
        }
        if (raftIndex > lastIndex()) {
            return -1;
        }
        return entries.get((int) (raftIndex - 1)).term();
    }

    Entry entryAt(long raftIndex) {
        return entries.get((int) (raftIndex - 1));
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
    long conflictHint(long prevIndex, long prevTerm, long commitIndex) {
        long hint = Math.min(prevIndex - 1, lastIndex());
        while (hint > commitIndex && termAt(hint) > prevTerm) {
            hint--;
        }
        return hint;
    }

    /** A leader appends its own entry. */
    void append(Entry entry) {
        Invariant.check(entry.raftIndex() == lastIndex() + 1, "append at %s to a log ending at %s",
                entry.raftIndex(), lastIndex());
        Invariant.check(entry.term() >= lastTerm(), "append of term %s after term %s", entry.term(), lastTerm());
        entries.add(entry);
    }

    /**
     * A follower takes a leader's entries that follow {@code prevIndex}, which must match: entries it already holds
     * are kept, the first conflicting one and everything after it are replaced (Raft figure 2, AppendEntries step 3).
     * The caller never truncates below the commit index: a committed entry never conflicts. Returns the index of
     * the last entry taken, which the follower now holds in agreement with the leader.
     */
    long appendFromLeader(long prevIndex, List<Entry> leaderEntries, long commitIndex) {
        for (Entry entry : leaderEntries) {
            long at = entry.raftIndex();
            Invariant.check(at == prevIndex + 1, "leader's entries not contiguous at %s", at);
            prevIndex = at;
            if (at <= lastIndex()) {
                if (termAt(at) == entry.term()) {
                    continue;
                }
                Invariant.check(at > commitIndex, "conflict at committed index %s (commit %s)", at, commitIndex);
                entries.subList((int) (at - 1), entries.size()).clear();
                stableIndex = Math.min(stableIndex, at - 1);
            }
            entries.add(entry);
        }
        return prevIndex;
    }

    /** Entries from {@code fromIndex} on, up to {@code bytesMax} of them (at least one when there is one). */
    List<Entry> slice(long fromIndex, int bytesMax) {
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

    /** Entries from {@code fromIndex} through {@code toIndex}, inclusive. */
    List<Entry> between(long fromIndex, long toIndex) {
        return List.copyOf(entries.subList((int) (fromIndex - 1), (int) toIndex));
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
}
