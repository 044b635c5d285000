package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Reads the segments of a {@link RaftWal}, oldest first, back into the groups' states and the log's bookkeeping
 * ({@link WalLedger}), checking every record (layout there).
 */
final class WalReplay {

    /** Whether the log starts at segment 0, so that every group's first record is in it. */
    private final boolean fromFirstSegment;
    private final Map<Integer, GroupReplay> groups = new HashMap<>();
    /** Groups that had a removal record: records after it start the group afresh, wherever the log starts. */
    private final Set<Integer> removed = new HashSet<>();
    private final List<WalLedger.Segment> segments = new ArrayList<>();

    WalReplay(boolean fromFirstSegment) {
        this.fromFirstSegment = fromFirstSegment;
    }

    /**
     * Replays segment {@code number}. A bad record ends the replay: in the last segment it is a torn write and the
     * file is cut before it; in an earlier one the log is corrupt and this throws.
     */
    void replay(Path file, long number, boolean last) throws IOException {
        WalLedger.Segment segment = new WalLedger.Segment(number);
        segments.add(segment);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new IOException(file + " is larger than a segment can be: " + size + " bytes");
            }
            MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            int position = 0;
            String problem = null;
            while (position < size && problem == null) {
                problem = check(bytes, position, (int) size);
                if (problem == null) {
                    position = apply(bytes, position, segment);
                }
            }
            if (problem != null) {
                if (!last) {
                    throw new IOException(file + " is corrupt at byte " + position + " (" + problem
                            + ") and is not the last segment: refusing to drop what follows");
                }
                channel.truncate(position);
                channel.force(true);
            }
            segment.bytes = position;
        }
    }

    /** What every group recovered. */
    Map<Integer, RaftWal.GroupState> groups() throws IOException {
        Map<Integer, RaftWal.GroupState> recovered = new HashMap<>();
        for (Map.Entry<Integer, GroupReplay> group : groups.entrySet()) {
            recovered.put(group.getKey(), group.getValue().build());
        }
        return recovered;
    }

    /** The bookkeeping of the log replayed, given what {@link #groups} recovered. */
    WalLedger ledger(Map<Integer, RaftWal.GroupState> recovered) {
        Map<Integer, WalGroup> live = new HashMap<>();
        groups.forEach((group, replay) -> live.put(group, WalGroup.recovered(group, recovered.get(group),
                replay.hardStateSegment, replay.snapshotSegment)));
        return new WalLedger(segments, live);
    }

    /** Null when a whole, intact record starts at {@code position}; otherwise what is wrong with it. */
    private static String check(ByteBuffer bytes, int position, int size) {
        if (size - position < RaftWal.HEADER_BYTES) {
            return "a header cut short";
        }
        int length = bytes.getInt(position);
        if (length < 5 || length > RaftWal.RECORD_BYTES_MAX) {
            return "length " + length;
        }
        if ((long) position + RaftWal.HEADER_BYTES + length > size) {
            return "a record cut short";
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.slice(position + RaftWal.HEADER_BYTES, length));
        if ((int) crc.getValue() != bytes.getInt(position + 4)) {
            return "a CRC mismatch";
        }
        return null;
    }

    private void onEntry(int group, Entry entry, WalLedger.Segment segment) throws IOException {
        if (group(group).onEntry(entry)) {
            WalLedger.capEntryIndexMax(segments, group, entry.raftIndex());
        }
        segment.entryIndexMax.merge(group, entry.raftIndex(), Math::max);
    }

    private GroupReplay group(int group) {
        return groups.computeIfAbsent(group, g -> new GroupReplay(fromFirstSegment || removed.contains(g)));
    }

    /** Applies the intact record at {@code position}; returns where the next one starts. */
    private int apply(ByteBuffer bytes, int position, WalLedger.Segment segment) throws IOException {
        int length = bytes.getInt(position);
        ByteBuffer body = bytes.slice(position + RaftWal.HEADER_BYTES, length);
        byte type = body.get();
        int group = body.getInt();
        if (type == RaftWal.TYPE_HARD_STATE && body.remaining() == 20) {
            long term = body.getLong();
            int votedFor = body.getInt();
            long commitIndex = body.getLong();
            if (term < 0 || commitIndex < 0) {
                throw malformed("hard state", position);
            }
            group(group).onHardState(new HardState(term, votedFor, commitIndex), segment.number);
        } else if (WalEntryRecords.isEntry(type)) {
            Entry entry = WalEntryRecords.read(type, body);
            if (entry == null) {
                throw malformed("entry (type " + type + ")", position);
            }
            onEntry(group, entry, segment);
        } else if (type == RaftWal.TYPE_SNAPSHOT || type == RaftWal.TYPE_SNAPSHOT_REPLACING_LOG) {
            SnapshotMeta snapshot = WalSnapshotRecords.read(body);
            if (snapshot == null) {
                throw malformed("snapshot", position);
            }
            if (type == RaftWal.TYPE_SNAPSHOT) {
                group(group).onSnapshot(snapshot, segment.number);
            } else {
                group(group).onSnapshotReplacingLog(snapshot, segment.number);
                WalLedger.capEntryIndexMax(segments, group, 1);
            }
        } else if (type == RaftWal.TYPE_REMOVAL && body.remaining() == 0) {
            groups.remove(group);
            removed.add(group);
            for (WalLedger.Segment earlier : segments) {
                earlier.entryIndexMax.remove(group);
            }
        } else {
            throw malformed("type " + type, position);
        }
        return position + RaftWal.HEADER_BYTES + length;
    }

    private static IOException malformed(String record, int position) {
        return new IOException(record + " record at byte " + position + " is malformed despite its CRC");
    }
}
