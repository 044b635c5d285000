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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * One write-ahead log for every Raft group of a process (docs/multi-raft.md, "One log per broker"): the runtime
 * appends what each group's {@code Ready} asks to persist, from as many groups as it has Readys for, and then
 * calls {@link #sync} once. So one write and at most one fsync cover every group: the fsyncs per second do not grow
 * with the number of groups written (issue 17). Recovery ({@link #open}) replays the log into each group's hard
 * state and entries.
 *
 * <pre>
 * file  wal-&lt;20-digit segment number&gt;.log, a new one once a segment passes segmentBytes (between batches)
 * record
 *   0  int    length of what follows the CRC (type and body), at most {@link #RECORD_BYTES_MAX}
 *   4  int    CRC32C of those bytes
 *   8  byte   type: 1 hard state, 2 entry, 3 snapshot
 *   9  int    group
 *  13  body   hard state: long term, int votedFor, long commitIndex (20 bytes)
 *             entry:      long term, long raftIndex, int dataLength, data
 *             snapshot:   long raftIndex, long term (16 bytes)
 * </pre>
 *
 * An entry record at index i replaces the group's entries from i on (what a Ready's entries mean), so a follower's
 * truncation needs no record of its own. A snapshot record says the group's state machine snapshot now stands at
 * that point (the runtime keeps the snapshot itself): the entries through it are dropped, and all of them when the
 * log held no entry of that index and term (a leader's snapshot replaced the log). A record cut short or failing
 * its CRC at the end of the last segment is a torn write: recovery cuts the file there. Anywhere else it is
 * corruption, and {@link #open} refuses to go on rather than lose acknowledged entries silently. Not yet: deleting
 * segments that snapshots made useless (they are kept). Single-threaded: the runtime's engine thread calls it.
 */
public final class RaftWal implements Closeable {

    /** The largest record: an entry of up to 16 MiB of data. */
    public static final int RECORD_BYTES_MAX = 16 * 1024 * 1024 + 64;
    /** Bytes one batch (the records between two syncs) may hold; the runtime syncs before it is reached. */
    public static final int BATCH_BYTES_MAX = 256 * 1024 * 1024;
    public static final long SEGMENT_BYTES_DEFAULT = 64L * 1024 * 1024;

    static final int HEADER_BYTES = 8;
    static final byte TYPE_HARD_STATE = 1;
    static final byte TYPE_ENTRY = 2;
    static final byte TYPE_SNAPSHOT = 3;
    private static final int SNAPSHOT_BODY_BYTES = 1 + 4 + 8 + 8;
    private static final int HARD_STATE_BODY_BYTES = 1 + 4 + 8 + 4 + 8;
    private static final int ENTRY_BODY_BYTES_BASE = 1 + 4 + 8 + 8 + 4;

    private final Path directory;
    private final long segmentBytes;
    private FileChannel active;
    private long activeNumber;
    private ByteBuffer batch = ByteBuffer.allocate(64 * 1024);
    private long syncs;

    /** One group's state as recovered from the log. */
    public record GroupState(HardState hardState, SnapshotMeta snapshot, List<Entry> entries) {

        /** A group the log holds nothing of. */
        public static final GroupState EMPTY = new GroupState(HardState.INITIAL, SnapshotMeta.NONE, List.of());
    }

    /** An opened log and what it held. */
    public record Opened(RaftWal wal, Map<Integer, GroupState> groups) {
    }

    private RaftWal(Path directory, long segmentBytes, FileChannel active, long activeNumber) {
        this.directory = directory;
        this.segmentBytes = segmentBytes;
        this.active = active;
        this.activeNumber = activeNumber;
    }

    /** Opens (creating if needed) the log in {@code directory} and replays it. */
    public static Opened open(Path directory, long segmentBytes) throws IOException {
        if (segmentBytes < 1024) {
            throw new IllegalArgumentException("segmentBytes " + segmentBytes + " is below 1024");
        }
        Files.createDirectories(directory);
        List<Path> segments = segments(directory);
        Map<Integer, GroupBuilder> groups = new HashMap<>();
        for (int i = 0; i < segments.size(); i++) {
            WalReplay.replay(segments.get(i), i == segments.size() - 1, groups);
        }
        long number = segments.isEmpty() ? 0 : number(segments.get(segments.size() - 1));
        FileChannel active = FileChannel.open(segmentPath(directory, number), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        Map<Integer, GroupState> recovered = new HashMap<>();
        groups.forEach((group, builder) -> recovered.put(group, builder.build()));
        return new Opened(new RaftWal(directory, segmentBytes, active, number), recovered);
    }

    private static List<Path> segments(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().matches("wal-\\d{20}\\.log")).sorted().toList();
        }
    }

    private static long number(Path segment) {
        String name = segment.getFileName().toString();
        return Long.parseLong(name.substring(4, 24));
    }

    static Path segmentPath(Path directory, long number) {
        return directory.resolve(String.format("wal-%020d.log", number));
    }

    /** Adds one group's hard state (when not null) and entries to the batch; nothing is written before sync. */
    public void append(int group, HardState hardState, List<Entry> entries) {
        if (hardState != null) {
            ByteBuffer body = reserve(HARD_STATE_BODY_BYTES);
            body.put(TYPE_HARD_STATE).putInt(group).putLong(hardState.term()).putInt(hardState.votedFor())
                    .putLong(hardState.commitIndex());
            seal(body);
        }
        for (Entry entry : entries) {
            int bodyBytes = ENTRY_BODY_BYTES_BASE + entry.data().length;
            if (bodyBytes > RECORD_BYTES_MAX) {
                throw new IllegalArgumentException("entry " + entry.raftIndex() + " of group " + group + " needs "
                        + bodyBytes + " bytes; a record holds at most " + RECORD_BYTES_MAX);
            }
            ByteBuffer body = reserve(bodyBytes);
            body.put(TYPE_ENTRY).putInt(group).putLong(entry.term()).putLong(entry.raftIndex())
                    .putInt(entry.data().length).put(entry.data());
            seal(body);
        }
    }

    /**
     * Adds a snapshot record to the batch: the group's log now starts after {@code snapshot}, written before the
     * entries of the same Ready (a follower restoring a leader's snapshot) or on its own (a compaction).
     */
    public void appendSnapshot(int group, SnapshotMeta snapshot) {
        ByteBuffer body = reserve(SNAPSHOT_BODY_BYTES);
        body.put(TYPE_SNAPSHOT).putInt(group).putLong(snapshot.raftIndex()).putLong(snapshot.term());
        seal(body);
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
     */
    public void sync(boolean fsync) throws IOException {
        if (batch.position() > 0) {
            if (active.size() > 0 && active.size() + batch.position() > segmentBytes) {
                roll();
            }
            batch.flip();
            while (batch.hasRemaining()) {
                active.write(batch);
            }
            batch.clear();
        }
        if (fsync) {
            active.force(false);
            syncs++;
        }
    }

    private void roll() throws IOException {
        active.force(false);
        active.close();
        activeNumber++;
        active = FileChannel.open(segmentPath(directory, activeNumber), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /** The fsyncs done so far (for tests and benchmarks). */
    public long syncs() {
        return syncs;
    }

    @Override
    public void close() throws IOException {
        active.close();
    }

    /** A group's state being rebuilt from its records, in log order. */
    static final class GroupBuilder {
        HardState hardState = HardState.INITIAL;
        SnapshotMeta snapshot = SnapshotMeta.NONE;
        /** The entries after the snapshot, in order. */
        final List<Entry> entries = new ArrayList<>();

        /** An entry record replaces the group's entries from its index on; a gap means the log is broken. */
        void onEntry(Entry entry) throws IOException {
            long position = entry.raftIndex() - snapshot.raftIndex();
            if (position < 1 || position > entries.size() + 1L) {
                throw new IOException("entry " + entry.raftIndex() + " does not follow snapshot " + snapshot
                        + " and " + entries.size() + " entries: the log has a gap");
            }
            entries.subList((int) (position - 1), entries.size()).clear();
            entries.add(entry);
        }

        /** The log starts after {@code next}: the entries it holds go, and the rest too unless they follow it. */
        void onSnapshot(SnapshotMeta next) {
            long position = next.raftIndex() - snapshot.raftIndex();
            boolean holdsIt = position >= 1 && position <= entries.size()
                    && entries.get((int) (position - 1)).term() == next.term();
            if (holdsIt) {
                entries.subList(0, (int) position).clear();
            } else {
                entries.clear();
            }
            snapshot = next;
        }

        GroupState build() {
            return new GroupState(hardState, snapshot, List.copyOf(entries));
        }
    }
}
