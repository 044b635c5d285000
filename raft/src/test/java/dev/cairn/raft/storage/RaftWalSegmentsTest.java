package dev.cairn.raft.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RaftWal deleting the segments that snapshots and removals made useless (its Javadoc, "Deleting segments"): each
 * test drives a RaftWal and a {@link WalModel} side by side, and every reopen must recover exactly the model.
 */
class RaftWalSegmentsTest {

    private static final long SEGMENT_BYTES = 1024;

    @TempDir
    Path dir;

    private RaftWal wal;
    private final WalModel model = new WalModel();
    /** The model as of the last sync: what a crash (a close without sync) must recover. */
    private WalModel synced = new WalModel();

    private void open() throws IOException {
        RaftWal.Opened opened = RaftWal.open(dir, SEGMENT_BYTES);
        wal = opened.wal();
        assertEquals(synced.states(), opened.groups(), "what the log recovered");
    }

    private void append(int group, HardState hardState, Entry... entries) {
        wal.append(group, hardState, List.of(entries));
        model.append(group, hardState, List.of(entries));
    }

    /** Appends {@code count} entries of {@code dataBytes} after the group's last, in its latest term (or 1). */
    private void appendEntries(int group, int count, int dataBytes) {
        WalModel.Group state = model.groups.getOrDefault(group, new WalModel.Group());
        long last = state.lastIndex();
        long term = state.entries.isEmpty() ? Math.max(1, state.snapshot.term())
                : state.entries.get(state.entries.size() - 1).term();
        for (int i = 1; i <= count; i++) {
            append(group, null, new Entry(term, last + i, new byte[dataBytes]));
        }
    }

    private void snapshot(int group, SnapshotMeta snapshot) {
        wal.appendSnapshot(group, snapshot);
        model.appendSnapshot(group, snapshot);
    }

    /** Snapshots the group at its last entry (a compaction of everything it applied). */
    private void snapshotAtLast(int group) {
        WalModel.Group state = model.groups.get(group);
        if (state.lastIndex() > state.snapshot.raftIndex()) {
            snapshot(group, new SnapshotMeta(state.lastIndex(), state.termAt(state.lastIndex())));
        }
    }

    private void remove(int group) {
        wal.removeGroup(group);
        model.removeGroup(group);
    }

    private void sync(boolean fsync) throws IOException {
        wal.sync(fsync);
        synced = model.copy();
        checkCountsMatchTheDirectory();
    }

    private void reopen() throws IOException {
        sync(false);
        wal.close();
        open();
    }

    private void checkCountsMatchTheDirectory() throws IOException {
        List<Path> files = WalFilesForTests.segmentFiles(dir);
        long bytes = 0;
        for (Path file : files) {
            bytes += Files.size(file);
        }
        assertEquals(files.size(), wal.segmentsOnDisk(), "segments on disk: " + files);
        assertEquals(bytes, wal.bytesOnDisk(), "bytes on disk");
    }

    /** Syncs until a sync deletes nothing more (each deletes a bounded number of segments). */
    private void drain() throws IOException {
        for (long deleted = -1; deleted != wal.segmentsDeleted(); ) {
            deleted = wal.segmentsDeleted();
            sync(false);
        }
    }

    private long lastSegmentBytes() throws IOException {
        List<Path> files = WalFilesForTests.segmentFiles(dir);
        return Files.size(files.get(files.size() - 1));
    }

    private boolean exists(long segment) {
        return Files.exists(RaftWal.segmentPath(dir, segment));
    }

    @Test
    void manyGroupsWhoseSnapshotsAdvanceKeepTheLogBoundedAndRecoverTheSame() throws IOException {
        open();
        int groups = 40;
        int rounds = 60;
        int lagRounds = 5;
        for (int round = 1; round <= rounds; round++) {
            for (int group = 0; group < groups; group++) {
                append(group, new HardState(round, group % 3, Math.max(0, round - 1)));
                appendEntries(group, 1, 40);
                if (round > lagRounds && round % lagRounds == 0) {
                    // A compaction that leaves the last lagRounds entries in the log.
                    WalModel.Group state = model.groups.get(group);
                    long at = state.lastIndex() - lagRounds;
                    snapshot(group, new SnapshotMeta(at, state.termAt(at)));
                }
            }
            sync(round % 10 == 0);
            if (round % 20 == 0) {
                reopen();
            }
        }
        long roundBytes = groups * ((8 + 25) + (8 + 25 + 40) + (8 + 21) / lagRounds);
        assertFalse(exists(0), "the first segment is gone");
        // The log holds what the last 2 * lagRounds rounds wrote (entries above a snapshot taken lagRounds after
        // them, up to lagRounds rounds ago), plus the segment cut through by the oldest of them and the active one.
        long bound = 2L * lagRounds * roundBytes + 2 * SEGMENT_BYTES;
        assertTrue(wal.bytesOnDisk() <= bound, wal.bytesOnDisk() + " bytes on disk, over " + bound + " after "
                + rounds * roundBytes + " written");
        reopen();
        wal.close();
    }

    @Test
    void aGroupThatNeverSnapshotsHoldsItsSegmentsUntilItDoes() throws IOException {
        open();
        append(1, new HardState(1, 1, 0));
        appendEntries(1, 1, 10);
        for (int i = 0; i < 40; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        assertTrue(wal.segmentsOnDisk() > 3, "segments rolled: " + wal.segmentsOnDisk());
        assertEquals(0, wal.segmentsDeleted(), "group 1's entry 1 holds segment 0, and so every later one");
        assertTrue(exists(0));
        snapshotAtLast(1);
        sync(false);
        assertFalse(exists(0), "deleted once group 1 snapshotted its entry");
        assertTrue(wal.segmentsDeleted() > 0);
        reopen();
        wal.close();
    }

    @Test
    void aHardStateOnlyInAnOldSegmentIsCarriedForwardAndSurvivesDeletion() throws IOException {
        open();
        append(7, new HardState(3, 2, 0));
        snapshot(8, new SnapshotMeta(10, 2));
        sync(false);
        for (int i = 0; i < 40; i++) {
            appendEntries(1, 1, 100);
            snapshotAtLast(1);
            sync(false);
        }
        assertFalse(exists(0), "segment 0, holding group 7's only record, is deleted");
        assertTrue(wal.segmentsDeleted() >= 3, "several deletions, so carried records were carried again");
        reopen();
        assertEquals(new HardState(3, 2, 0), model.states().get(7).hardState());
        assertEquals(new SnapshotMeta(10, 2), model.states().get(8).snapshot());
        wal.close();
    }

    @Test
    void aRemovedGroupIsForgottenAndHoldsNoSegment() throws IOException {
        open();
        append(1, new HardState(1, 1, 1));
        appendEntries(1, 3, 10);
        snapshot(1, new SnapshotMeta(1, 1));
        for (int i = 0; i < 20; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        assertTrue(exists(0), "group 1's entries 2 and 3 hold segment 0");
        remove(1);
        sync(false);
        assertFalse(exists(0), "a removed group holds nothing");
        reopen();
        assertFalse(model.states().containsKey(1));
        wal.close();
    }

    @Test
    void aGroupIdReusedAfterItsRemovalStartsAfresh() throws IOException {
        open();
        append(5, new HardState(4, 2, 3));
        appendEntries(5, 3, 10);
        snapshot(5, new SnapshotMeta(2, 1));
        remove(5);
        reopen();
        assertFalse(model.states().containsKey(5));
        append(5, new HardState(1, 1, 0));
        appendEntries(5, 1, 10);
        reopen();
        assertEquals(new RaftWal.GroupState(new HardState(1, 1, 0), SnapshotMeta.NONE,
                List.of(new Entry(1, 1, new byte[10]))), model.states().get(5));
        // Its old entries (up to 3) no longer hold anything; its new entry 1 does, until a snapshot passes it.
        for (int i = 0; i < 20; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        assertTrue(exists(0));
        snapshotAtLast(5);
        sync(false);
        assertFalse(exists(0));
        reopen();
        wal.close();
    }

    @Test
    void aSnapshotThatReplacedTheLogStillDoesAfterTheEntryAtItsIndexIsDeleted() throws IOException {
        // A follower holds entries 1-8 of term 1 that a leader of term 2 never had; the leader sends its snapshot at
        // 5 of term 2. Once segment 0 (entries 1-5) is gone, a replay meets entries 6-8 and then the snapshot at 5,
        // and only the record's type says whether they stay (type 3) or go (type 5).
        open();
        appendEntries(1, 5, 10);
        appendEntries(3, 1, 700);
        snapshotAtLast(3);
        sync(false);
        assertEquals(1, wal.segmentsOnDisk());
        appendEntries(1, 3, 10);
        appendEntries(2, 1, 10);
        sync(false);
        assertEquals(2, wal.segmentsOnDisk(), "entries 6-8 of group 1 went to segment 1");
        snapshot(1, new SnapshotMeta(5, 2));
        sync(false);
        assertFalse(exists(0), "segment 0 is useless: group 1's snapshot is at 5, group 3's at its entry");
        assertTrue(exists(1), "group 2's entry 1 holds segment 1");
        reopen();
        assertEquals(new RaftWal.GroupState(HardState.INITIAL, new SnapshotMeta(5, 2), List.of()),
                model.states().get(1));
        wal.close();
    }

    @Test
    void entriesATruncationReplacedHoldNoSegment() throws IOException {
        // A follower's tail 6-10 of term 1 is replaced by a new leader's 6-7 of term 2; once the group snapshots at
        // 7, the dead 8-10 must not keep segment 0 (nor, since deletion goes oldest first, anything after it).
        open();
        appendEntries(1, 10, 60);
        sync(false);
        append(1, null, new Entry(2, 6, new byte[10]), new Entry(2, 7, new byte[10]));
        for (int i = 0; i < 20; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        assertTrue(exists(0), "group 1's entries 1-5 hold segment 0 until it snapshots");
        snapshotAtLast(1);
        sync(false);
        assertFalse(exists(0));
        reopen();
        wal.close();
    }

    @Test
    void aCrashPartWayThroughADeletionRecoversTheSameAndAHoleIsRefused() throws IOException {
        open();
        append(3, new HardState(2, 1, 0));
        appendEntries(1, 1, 10);
        for (int i = 0; i < 30; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        long closed = wal.segmentsOnDisk() - 1;
        assertTrue(closed >= 3, "closed segments held by group 1: " + closed);
        Path saved = Files.createDirectory(dir.resolve("saved"));
        for (long segment = 0; segment < closed; segment++) {
            Files.copy(RaftWal.segmentPath(dir, segment), saved.resolve("" + segment));
        }
        snapshotAtLast(1);
        sync(false);
        wal.close();
        for (long segment = 0; segment < closed; segment++) {
            assertFalse(exists(segment), "segment " + segment + " deleted");
        }
        // Deletion goes oldest first: a crash after deleting the first two leaves the rest.
        for (long segment = 2; segment < closed; segment++) {
            Files.copy(saved.resolve("" + segment), RaftWal.segmentPath(dir, segment));
        }
        open();
        wal.close();
        // A crash before the first unlink (after the carried records were forced) leaves them all.
        for (long segment = 0; segment < 2; segment++) {
            Files.copy(saved.resolve("" + segment), RaftWal.segmentPath(dir, segment));
        }
        open();
        wal.close();
        // No deletion leaves a hole: one in the middle is a lost segment.
        Files.delete(RaftWal.segmentPath(dir, 1));
        IOException e = assertThrows(IOException.class, () -> RaftWal.open(dir, SEGMENT_BYTES));
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void aLogThatStartsPastSegmentZeroStillCutsATornTailAndRefusesMidLogCorruption() throws IOException {
        open();
        appendEntries(1, 1, 10);
        for (int i = 0; i < 30; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        snapshotAtLast(1);
        sync(false);
        assertFalse(exists(0));
        // The torn record must be the last written, not a carried-forward one (those are forced before any
        // deletion, so no crash tears them): one record alone, in a sync that neither rolls nor deletes.
        drain();
        while (lastSegmentBytes() + 8 + 25 + 10 > SEGMENT_BYTES) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            drain();
        }
        long before = wal.bytesOnDisk();
        synced = model.copy();
        appendEntries(3, 1, 10);
        wal.sync(false);
        assertEquals(before + 8 + 25 + 10, wal.bytesOnDisk(), "one entry record and nothing carried");
        wal.close();
        List<Path> files = WalFilesForTests.segmentFiles(dir);
        assertFalse(exists(0), "a log that starts past segment 0: " + files);
        Path last = files.get(files.size() - 1);
        try (RandomAccessFile file = new RandomAccessFile(last.toFile(), "rw")) {
            file.setLength(file.length() - 3);
        }
        open();
        for (int i = 0; i < 20; i++) {
            appendEntries(4, 1, 100);
            sync(false);
        }
        wal.close();
        files = WalFilesForTests.segmentFiles(dir);
        assertTrue(files.size() >= 2 && !exists(0), "a log of several segments past segment 0: " + files);
        try (RandomAccessFile file = new RandomAccessFile(files.get(0).toFile(), "rw")) {
            file.seek(20);
            int flipped = file.read() ^ 0xFF;
            file.seek(20);
            file.write(flipped);
        }
        IOException e = assertThrows(IOException.class, () -> RaftWal.open(dir, SEGMENT_BYTES));
        assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    }

    @Test
    void aFailedSyncDeletesNothingAndRefusesLaterSyncs() throws IOException {
        open();
        appendEntries(1, 1, 10);
        for (int i = 0; i < 12; i++) {
            appendEntries(2, 1, 100);
            snapshotAtLast(2);
            sync(false);
        }
        long active = wal.segmentsOnDisk() - 1;
        assertTrue(active >= 1 && exists(0));
        // The next roll cannot create its file: the sync fails while writing, before it deletes anything.
        Path blocker = Files.createDirectory(RaftWal.segmentPath(dir, active + 1));
        snapshotAtLast(1);
        appendEntries(2, 1, (int) SEGMENT_BYTES);
        assertThrows(IOException.class, () -> wal.sync(true));
        assertTrue(exists(0), "nothing deleted");
        IOException e = assertThrows(IOException.class, () -> wal.sync(true));
        assertTrue(e.getMessage().contains("earlier sync"), e.getMessage());
        wal.close();
        Files.delete(blocker);
        open();
        wal.close();
    }
}
