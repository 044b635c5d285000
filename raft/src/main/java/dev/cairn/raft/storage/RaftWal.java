package dev.cairn.raft.storage;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * One write-ahead log for every Raft group of a process (docs/multi-raft.md, "One log per broker"): the runtime
 * appends what each group's {@code Ready} asks to persist, from as many groups as it has Readys for, and then
 * calls {@link #sync} once. So one write and at most one fsync cover every group: the fsyncs per second do not grow
 * with the number of groups written (issue 17). Recovery ({@link #open}) replays the log into each group's hard
 * state, snapshot and entries.
 *
 * <pre>
 * file  wal-&lt;20-digit segment number&gt;.log, a new one once a segment passes segmentBytes (between batches);
 *       the oldest are deleted once useless, so the log starts at its lowest-numbered segment
 * record
 *   0  int    length of what follows the CRC (type and body), at most {@link #RECORD_BYTES_MAX}
 *   4  int    CRC32C of those bytes
 *   8  byte   type: 1 hard state, 2/6/7 entry, 3 snapshot, 4 removal, 5 snapshot replacing the log
 *   9  int    group
 *  13  body   hard state: long term, int votedFor, long commitIndex (20 bytes)
 *             entry:      long term, long raftIndex, int length, bytes (WalEntryRecords)
 *             snapshot:   long raftIndex, long term, voters, for types 3 and 5 (WalSnapshotRecords)
 *             removal:    nothing
 * </pre>
 *
 * <p>An entry record at index i replaces the group's entries from i on (what a Ready's entries mean), so a follower's
 * truncation needs no record of its own. A snapshot record says the group's state machine snapshot now stands at that
 * point (the runtime keeps the snapshot itself). Type 3 is a snapshot the log holds (an entry of that index and term,
 * as after a compaction), or the group's current snapshot again: the entries through it are dropped and the ones after
 * it kept. Type 5 is one the log does not hold (a leader's snapshot replaced it): every entry is dropped. The log tells
 * them apart when appending, so that a replay that starts after the entry at the snapshot's index (deleted) still
 * knows. A removal record forgets the group: hard state, snapshot and entries; records after it start the group afresh
 * (its id may be reused). A record cut short or failing its CRC at the end of the last segment is a torn write:
 * recovery cuts the file there. Anywhere else it is corruption, and {@link #open} refuses to go on rather than lose
 * acknowledged entries silently; so does a segment missing between two that exist.
 *
 * <p>Deleting segments. A closed segment is useless once every live group with entries in it has its snapshot at or
 * past the highest of them (a removed group holds nothing). Only the oldest segments are deleted, oldest first, and
 * never the active one, so a log is always a run of consecutive segments. A useless segment may still hold a
 * group's latest hard state or snapshot record, which recovery needs: before deleting, {@link #sync} carries them
 * forward (appends them again, which changes nothing a replay rebuilds: the last hard state wins, and the current
 * snapshot again keeps the entries after it), writes them and forces them to the device, and then deletes the
 * segments one at a time, each unlink followed by an fsync of the directory. So a crash (of the process or the
 * machine) at any point leaves the carried records durable and the deleted segments a prefix of the log: recovery
 * gives every group the same state whether or not the deletion happened (the replay rules for a log that starts
 * mid-way are in {@link GroupReplay}). Single-threaded: the runtime's engine thread calls it.
 */
public final class RaftWal implements Closeable {

    /** The largest record: an entry of up to 16 MiB of data. */
    public static final int RECORD_BYTES_MAX = 16 * 1024 * 1024 + 64;
    /** Bytes one batch (the records between two syncs) may hold; the runtime syncs before it is reached. */
    public static final int BATCH_BYTES_MAX = 256 * 1024 * 1024;
    public static final long SEGMENT_BYTES_DEFAULT = 64L * 1024 * 1024;
    /** Segments one sync deletes at most (an unlink and a directory fsync each); the next syncs delete the rest. */
    public static final int SEGMENTS_DELETED_PER_SYNC_MAX = 8;

    static final int HEADER_BYTES = 8;
    static final byte TYPE_HARD_STATE = 1;
    static final byte TYPE_SNAPSHOT = 3;
    static final byte TYPE_REMOVAL = 4;
    static final byte TYPE_SNAPSHOT_REPLACING_LOG = 5;
    private static final int HARD_STATE_BODY_BYTES = 1 + 4 + 8 + 4 + 8;
    private static final int REMOVAL_BODY_BYTES = 1 + 4;

    private final Path directory;
    private final long segmentBytes;
    private final WalLedger ledger;
    private final SegmentWriteback writeback;
    private FileChannel active;
    private long activeNumber;
    private ByteBuffer batch = ByteBuffer.allocate(64 * 1024);
    private long syncs;
    private long segmentsDeleted;
    /** Set when a sync failed: what reached the files is unknown, so nothing more is written or deleted. */
    private boolean failed;

    /** One group's state as recovered from the log. */
    public record GroupState(HardState hardState, SnapshotMeta snapshot, List<Entry> entries) {

        /** A group the log holds nothing of. */
        public static final GroupState EMPTY = new GroupState(HardState.INITIAL, SnapshotMeta.NONE, List.of());
    }

    /** An opened log and what it held. */
    public record Opened(RaftWal wal, Map<Integer, GroupState> groups) {
    }

    private RaftWal(Path directory, long segmentBytes, WalLedger ledger, FileChannel active, long activeNumber) {
        this.directory = directory;
        this.segmentBytes = segmentBytes;
        this.ledger = ledger;
        this.active = active;
        this.activeNumber = activeNumber;
        this.writeback = new SegmentWriteback("raft-wal-writeback-" + directory.getFileName());
    }

    /** Opens (creating if needed) the log in {@code directory} and replays it. */
    public static Opened open(Path directory, long segmentBytes) throws IOException {
        if (segmentBytes < 1024) {
            throw new IllegalArgumentException("segmentBytes " + segmentBytes + " is below 1024");
        }
        Files.createDirectories(directory);
        List<Long> segments = WalFiles.segments(directory);
        WalReplay replay = new WalReplay(segments.isEmpty() || segments.get(0) == 0);
        for (int i = 0; i < segments.size(); i++) {
            replay.replay(segmentPath(directory, segments.get(i)), segments.get(i), i == segments.size() - 1);
        }
        Map<Integer, GroupState> recovered = replay.groups();
        WalLedger ledger = replay.ledger(recovered);
        long number = segments.isEmpty() ? 0 : segments.get(segments.size() - 1);
        FileChannel active = FileChannel.open(segmentPath(directory, number), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        if (segments.isEmpty()) {
            WalFiles.forceDirectory(directory);
            ledger.onRolled(number);
        }
        return new Opened(new RaftWal(directory, segmentBytes, ledger, active, number), recovered);
    }

    static Path segmentPath(Path directory, long number) {
        return WalFiles.segmentPath(directory, number);
    }

    /** {@link #append(int, HardState, List, BitSet)} with every entry logged whole. */
    public void append(int group, HardState hardState, List<Entry> entries) {
        append(group, hardState, entries, null);
    }

    /**
     * Adds one group's hard state (when not null) and entries to the batch; nothing is written before sync. Refuses
     * (before adding anything) an entry over {@link #RECORD_BYTES_MAX} or one a replay would take for a gap: each
     * must come after the group's snapshot and at most one past the entry before it. {@code tailsHeld} (or null):
     * the entries (bit i for entry i) whose tails the group's state machine stored, logged as heads only.
     */
    public void append(int group, HardState hardState, List<Entry> entries, BitSet tailsHeld) {
        if (hardState == null && entries.isEmpty()) {
            return;
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            int bodyBytes = WalEntryRecords.bodyBytes(entry, WalEntryRecords.held(tailsHeld, i));
            if (bodyBytes > RECORD_BYTES_MAX) {
                throw new IllegalArgumentException("entry " + entry.raftIndex() + " of group " + group + " needs "
                        + bodyBytes + " bytes; a record holds at most " + RECORD_BYTES_MAX);
            }
        }
        WalGroup tracked = ledger.group(group);
        tracked.checkEntries(entries);
        if (hardState != null) {
            putHardState(tracked, hardState);
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            boolean held = WalEntryRecords.held(tailsHeld, i);
            ByteBuffer body = reserve(WalEntryRecords.bodyBytes(entry, held));
            WalEntryRecords.write(body, group, entry, held);
            seal(body);
            if (entry.raftIndex() <= tracked.lastIndex()) {
                ledger.onTruncated(tracked, entry.raftIndex());
            }
            tracked.onEntry(entry.raftIndex(), entry.term());
            ledger.onEntryAppended(tracked, entry.raftIndex());
        }
    }

    /**
     * Adds a snapshot record to the batch: the group's log now starts after {@code snapshot}, written before the
     * entries of the same Ready (a follower restoring a leader's snapshot) or on its own (a compaction). A snapshot
     * only moves forward: it must be past the group's current one, or be the current one again.
     */
    public void appendSnapshot(int group, SnapshotMeta snapshot) {
        if (snapshot.raftIndex() < 1) {
            throw new IllegalArgumentException("a snapshot record of group " + group + " needs an index: " + snapshot);
        }
        WalGroup tracked = ledger.group(group);
        boolean same = snapshot.equals(tracked.snapshot);
        if (!same && snapshot.raftIndex() <= tracked.snapshot.raftIndex()) {
            throw new IllegalArgumentException("snapshot " + snapshot + " of group " + group
                    + " is not past its snapshot " + tracked.snapshot);
        }
        boolean held = same || tracked.holds(snapshot);
        putSnapshot(tracked, snapshot, held ? TYPE_SNAPSHOT : TYPE_SNAPSHOT_REPLACING_LOG);
        if (!same) {
            if (!held) {
                ledger.onTruncated(tracked, 1);
            }
            tracked.onSnapshot(snapshot, held);
            ledger.onSnapshotMoved();
        }
    }

    /**
     * Adds a removal record to the batch: recovery forgets {@code group} (hard state, snapshot, entries) unless
     * records for it come later, which start it afresh. Its records no longer hold any segment.
     */
    public void removeGroup(int group) {
        ByteBuffer body = reserve(REMOVAL_BODY_BYTES);
        body.put(TYPE_REMOVAL).putInt(group);
        seal(body);
        ledger.onRemoved(group);
    }

    private void putHardState(WalGroup group, HardState hardState) {
        ByteBuffer body = reserve(HARD_STATE_BODY_BYTES);
        body.put(TYPE_HARD_STATE).putInt(group.group).putLong(hardState.term()).putInt(hardState.votedFor())
                .putLong(hardState.commitIndex());
        seal(body);
        group.hardState = hardState;
        group.hardStateSegment = WalGroup.IN_BATCH;
        ledger.onAppended(group);
    }

    private void putSnapshot(WalGroup group, SnapshotMeta snapshot, byte type) {
        ByteBuffer body = reserve(WalSnapshotRecords.bodyBytes(snapshot));
        WalSnapshotRecords.write(body, type, group.group, snapshot);
        seal(body);
        group.snapshotSegment = WalGroup.IN_BATCH;
        ledger.onAppended(group);
    }

    /** Room for one record in the batch; returns a view positioned at its body, whose limit is the body's end. */
    private ByteBuffer reserve(int bodyBytes) {
        int needed = HEADER_BYTES + bodyBytes;
        if (batch.remaining() < needed) {
            if (batch.position() + (long) needed > BATCH_BYTES_MAX) {
                throw new IllegalStateException("a batch holds at most " + BATCH_BYTES_MAX + " bytes: sync first");
            }
            int capacity = (int) Math.min(BATCH_BYTES_MAX, Math.max(2L * batch.capacity(),
                    (long) batch.position() + needed));
            ByteBuffer grown = ByteBuffer.allocate(capacity);
            batch.flip();
            grown.put(batch);
            batch = grown;
        }
        int start = batch.position();
        batch.putInt(bodyBytes).putInt(0);
        ByteBuffer body = batch.slice(start + HEADER_BYTES, bodyBytes);
        batch.position(start + needed);
        return body;
    }

    /** Writes the CRC of a body filled through its view. */
    private void seal(ByteBuffer body) {
        Invariant.check(!body.hasRemaining(), "a record body was not filled");
        CRC32C crc = new CRC32C();
        body.flip();
        crc.update(body);
        int crcAt = batch.position() - body.limit() - 4;
        batch.putInt(crcAt, (int) crc.getValue());
    }

    /**
     * Writes the batch to the active segment and, when {@code fsync}, forces it to the device: once, whatever the
     * number of groups in the batch. Without fsync the batch is in the page cache, which survives the process
     * (kill -9) but not the machine.
     *
     * <p>Then deletes what snapshots and removals made useless: up to {@link #SEGMENTS_DELETED_PER_SYNC_MAX} of the
     * oldest segments (never the active one), after carrying forward the latest hard state and snapshot records
     * they hold and forcing them to the device, even when {@code fsync} is false (the one fsync a deletion costs,
     * so that a machine crash cannot lose a carried record whose original was deleted). Looking for useless
     * segments costs nothing on a sync when no snapshot moved, no entry was replaced, no group went and no segment
     * rolled since the last look.
     *
     * <p>A sync that throws leaves the log failed: what reached the file is unknown (a partial write would sit
     * before anything written after it), so every later sync throws and nothing more is deleted. Reopen the log:
     * recovery cuts a torn tail.
     */
    public void sync(boolean fsync) throws IOException {
        if (failed) {
            throw new IOException("an earlier sync of " + directory + " failed: reopen the log");
        }
        boolean done = false;
        try {
            long written = write();
            int useless = ledger.uselessOldest(SEGMENTS_DELETED_PER_SYNC_MAX);
            long uselessThrough = ledger.oldestNumber() + useless - 1;
            if (useless > 0) {
                carryForward(uselessThrough);
                written += write();
            }
            if (fsync || useless > 0) {
                active.force(false);
                syncs++;
                writeback.onForced();
            } else {
                writeback.onWritten(active, written);
            }
            if (useless > 0) {
                deleteThrough(uselessThrough);
            }
            done = true;
        } finally {
            failed = !done;
        }
    }

    /** Writes the batch, rolling first if it would overflow the active segment; returns the bytes written. */
    private long write() throws IOException {
        if (batch.position() == 0) {
            return 0;
        }
        if (ledger.activeBytes() > 0 && ledger.activeBytes() + batch.position() > segmentBytes) {
            roll();
        }
        int bytes = batch.position();
        batch.flip();
        while (batch.hasRemaining()) {
            active.write(batch);
        }
        batch.clear();
        ledger.onBatchWritten(activeNumber, bytes);
        return bytes;
    }

    /** Appends again every live group's latest hard state and snapshot record that is in a segment to delete. */
    private void carryForward(long uselessThrough) {
        for (WalGroup group : ledger.groups()) {
            if (group.hardStateSegment != WalGroup.NO_SEGMENT && group.hardStateSegment <= uselessThrough) {
                putHardState(group, group.hardState);
            }
            if (group.snapshotSegment != WalGroup.NO_SEGMENT && group.snapshotSegment <= uselessThrough) {
                putSnapshot(group, group.snapshot, TYPE_SNAPSHOT);
            }
        }
    }

    /** Deletes the segments through {@code number}, oldest first, each unlink made durable before the next. */
    private void deleteThrough(long number) throws IOException {
        Invariant.check(number < activeNumber, "segment " + number + " is not closed");
        while (ledger.oldestNumber() <= number) {
            long oldest = ledger.oldestNumber();
            Files.delete(segmentPath(directory, oldest));
            WalFiles.forceDirectory(directory);
            ledger.onDeleted(oldest);
            segmentsDeleted++;
        }
    }

    /**
     * Forces the active segment whole (little is left when {@link SegmentWriteback} wrote it back meanwhile), closes
     * it and starts the next, whose directory entry is made durable at once.
     */
    private void roll() throws IOException {
        writeback.awaitQuiet();
        active.force(false);
        active.close();
        activeNumber++;
        active = FileChannel.open(segmentPath(directory, activeNumber), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        WalFiles.forceDirectory(directory);
        ledger.onRolled(activeNumber);
    }

    /** The fsyncs of segments done by sync so far (for tests and benchmarks). */
    public long syncs() {
        return syncs;
    }

    /** Background writebacks of the active segment started so far ({@link SegmentWriteback}). */
    public long writebacksStarted() {
        return writeback.forcesStarted();
    }

    /** The segment files on disk, the active one included. */
    public int segmentsOnDisk() {
        return ledger.segmentCount();
    }

    /** The bytes of the segment files on disk (what syncs wrote; the batch not yet written is not counted). */
    public long bytesOnDisk() {
        return ledger.bytes();
    }

    /** The segments this instance deleted so far. */
    public long segmentsDeleted() {
        return segmentsDeleted;
    }

    @Override
    public void close() throws IOException {
        writeback.close();
        active.close();
    }
}
