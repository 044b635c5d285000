package dev.cairn.raft.storage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link RaftWal}'s bookkeeping in memory, rebuilt at open by {@link WalReplay}: the segments on disk, oldest first
 * (the last is the active one), with, for each, the highest entry index it holds for each live group; the live
 * groups ({@link WalGroup}); and the groups with records in the batch, whose locations are settled when the batch is
 * written. From these it tells which of the oldest segments are useless.
 */
final class WalLedger {

    /** One segment file and what it holds. */
    static final class Segment {
        final long number;
        long bytes;
        /** For each live group with live entry records here (not replaced since), the highest entry index. */
        final Map<Integer, Long> entryIndexMax = new HashMap<>();
        /** The group found holding this segment at the last look (looked at first next time), or null. */
        Integer holder;

        Segment(long number) {
            this.number = number;
        }
    }

    private final ArrayDeque<Segment> segments;
    private final Map<Integer, WalGroup> groups;
    private final List<WalGroup> batchGroups = new ArrayList<>();
    /** Set when a segment may have become useless since the last look: a snapshot moved, a group went, a roll. */
    private boolean maybeUseless = true;

    WalLedger(List<Segment> segments, Map<Integer, WalGroup> groups) {
        this.segments = new ArrayDeque<>(segments);
        this.groups = groups;
    }

    /** The live group, created when it has had no record yet (or none since its removal). */
    WalGroup group(int group) {
        return groups.computeIfAbsent(group, WalGroup::new);
    }

    Collection<WalGroup> groups() {
        return groups.values();
    }

    /** The group has a record in the batch. */
    void onAppended(WalGroup group) {
        if (!group.inBatch) {
            group.inBatch = true;
            batchGroups.add(group);
        }
    }

    void onEntryAppended(WalGroup group, long raftIndex) {
        onAppended(group);
        group.batchEntryIndexMax = Math.max(group.batchEntryIndexMax, raftIndex);
    }

    /**
     * The group's entries from {@code raftIndex} on were replaced (a truncation), or all of them (1, a snapshot that
     * replaced the log): those records are dead and hold no segment any more. Safe to forget because the record that
     * killed them is written after them, so it is never deleted before them: a replay never meets a dead entry
     * without its killer after it. Costs one look-up per segment; truncations come with leader changes only.
     */
    void onTruncated(WalGroup group, long raftIndex) {
        capEntryIndexMax(segments, group.group, raftIndex);
        group.batchEntryIndexMax = Math.min(group.batchEntryIndexMax, raftIndex - 1);
        maybeUseless = true;
    }

    /** Lowers each segment's highest entry index of {@code group} to below {@code raftIndex}. */
    static void capEntryIndexMax(Iterable<Segment> segments, int group, long raftIndex) {
        for (Segment segment : segments) {
            segment.entryIndexMax.computeIfPresent(group, (g, max) -> max < raftIndex ? max
                    : raftIndex > 1 ? Long.valueOf(raftIndex - 1) : null);
        }
    }

    void onSnapshotMoved() {
        maybeUseless = true;
    }

    /** The group's records, written or in the batch, no longer hold any segment, and it is no longer carried. */
    void onRemoved(int group) {
        WalGroup removed = groups.remove(group);
        if (removed != null) {
            removed.removed = true;
        }
        for (Segment segment : segments) {
            segment.entryIndexMax.remove(group);
        }
        maybeUseless = true;
    }

    /** The batch went to the active segment, {@code number}: its records' locations are settled. */
    void onBatchWritten(long number, long bytes) {
        Segment segment = segments.getLast();
        Invariant.check(segment.number == number, "the batch went to segment %s, not the active one", number);
        segment.bytes += bytes;
        for (WalGroup group : batchGroups) {
            if (!group.removed) {
                if (group.batchEntryIndexMax > 0) {
                    segment.entryIndexMax.merge(group.group, group.batchEntryIndexMax, Math::max);
                }
                if (group.hardStateSegment == WalGroup.IN_BATCH) {
                    group.hardStateSegment = number;
                }
                if (group.snapshotSegment == WalGroup.IN_BATCH) {
                    group.snapshotSegment = number;
                }
            }
            group.batchEntryIndexMax = 0;
            group.inBatch = false;
        }
        batchGroups.clear();
    }

    void onRolled(long number) {
        Invariant.check(segments.isEmpty() || segments.getLast().number + 1 == number,
                "segment " + number + " does not follow " + segments.peekLast());
        segments.addLast(new Segment(number));
        maybeUseless = true;
    }

    void onDeleted(long number) {
        Segment deleted = segments.removeFirst();
        Invariant.check(deleted.number == number, "deleted segment " + number + " is not the oldest");
        Invariant.check(!segments.isEmpty(), "the active segment was deleted");
    }

    /**
     * How many of the oldest segments, counted from the oldest and stopping at the first that is not useless or at
     * the active one, are useless: at most {@code max}. A closed segment is useless when every live group with
     * entries in it has its snapshot at or past the highest of them. Costs nothing when nothing changed since the
     * last look, and usually one look-up otherwise (the group that held the oldest segment last time).
     */
    int uselessOldest(int max) {
        if (!maybeUseless) {
            return 0;
        }
        int count = 0;
        for (Segment segment : segments) {
            if (count == max) {
                return count;
            }
            if (segment == segments.getLast() || isHeld(segment)) {
                break;
            }
            count++;
        }
        maybeUseless = false;
        return count;
    }

    private boolean isHeld(Segment segment) {
        if (segment.holder != null && holds(segment.holder, segment)) {
            return true;
        }
        for (int group : segment.entryIndexMax.keySet()) {
            if (holds(group, segment)) {
                segment.holder = group;
                return true;
            }
        }
        return false;
    }

    private boolean holds(int group, Segment segment) {
        Long entryIndexMax = segment.entryIndexMax.get(group);
        if (entryIndexMax == null) {
            return false;
        }
        WalGroup live = groups.get(group);
        Invariant.check(live != null, "segment " + segment.number + " holds entries of group " + group
                + ", which is not live");
        return live.snapshot.raftIndex() < entryIndexMax;
    }

    long oldestNumber() {
        return segments.getFirst().number;
    }

    long activeBytes() {
        return segments.getLast().bytes;
    }

    int segmentCount() {
        return segments.size();
    }

    long bytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            bytes += segment.bytes;
        }
        return bytes;
    }
}
