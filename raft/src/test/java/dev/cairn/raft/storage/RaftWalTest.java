package dev.cairn.raft.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftWalTest {

    @TempDir
    Path dir;

    private static Entry entry(long term, long raftIndex, String data) {
        return new Entry(term, raftIndex, data.getBytes());
    }

    private Map<Integer, RaftWal.GroupState> reopen() throws IOException {
        RaftWal.Opened opened = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT);
        opened.wal().close();
        return opened.groups();
    }

    @Test
    void whatManyGroupsAppendedComesBackAfterOneSync() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        for (int group = 0; group < 100; group++) {
            wal.append(group, new HardState(2, 1, 1), List.of(entry(1, 1, "a" + group), entry(2, 2, "b" + group)));
        }
        wal.sync(true);
        assertEquals(1, wal.syncs(), "one fsync for a hundred groups");
        wal.close();
        Map<Integer, RaftWal.GroupState> groups = reopen();
        assertEquals(100, groups.size());
        assertEquals(new HardState(2, 1, 1), groups.get(42).hardState());
        assertEquals(List.of(entry(1, 1, "a42"), entry(2, 2, "b42")), groups.get(42).entries());
    }

    @Test
    void laterEntriesReplaceAGroupsEntriesFromTheirIndexOnAndTheLastHardStateWins() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(7, new HardState(1, 1, 0), List.of(entry(1, 1, "x"), entry(1, 2, "y"), entry(1, 3, "z")));
        wal.sync(false);
        wal.append(7, new HardState(2, 2, 2), List.of(entry(2, 2, "y2")));
        wal.sync(false);
        wal.close();
        RaftWal.GroupState state = reopen().get(7);
        assertEquals(List.of(entry(1, 1, "x"), entry(2, 2, "y2")), state.entries());
        assertEquals(new HardState(2, 2, 2), state.hardState());
    }

    @Test
    void aTornTailIsCutAndTheLogGoesOn() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "kept")));
        wal.sync(false);
        wal.append(1, null, List.of(entry(1, 2, "torn")));
        wal.sync(false);
        wal.close();
        Path segment = RaftWal.segmentPath(dir, 0);
        long size = Files.size(segment);
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(size - 3);
        }
        RaftWal.Opened opened = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT);
        assertEquals(List.of(entry(1, 1, "kept")), opened.groups().get(1).entries());
        assertTrue(Files.size(segment) < size - 3, "the torn record was cut off the file");
        opened.wal().append(1, null, List.of(entry(1, 2, "again")));
        opened.wal().sync(true);
        opened.wal().close();
        assertEquals(List.of(entry(1, 1, "kept"), entry(1, 2, "again")), reopen().get(1).entries());
    }

    @Test
    void aFlippedByteInTheLastRecordIsATornWrite() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "kept"), entry(1, 2, "flipped")));
        wal.sync(false);
        wal.close();
        flipLastByte(RaftWal.segmentPath(dir, 0));
        assertEquals(List.of(entry(1, 1, "kept")), reopen().get(1).entries());
    }

    @Test
    void corruptionBeforeTheLastSegmentStopsTheOpenRatherThanDropWhatFollows() throws IOException {
        RaftWal wal = RaftWal.open(dir, 1024).wal();
        for (int i = 1; i <= 40; i++) {
            wal.append(1, null, List.of(entry(1, i, "x".repeat(100))));
            wal.sync(false);
        }
        wal.close();
        List<Path> segments;
        try (Stream<Path> files = Files.list(dir)) {
            segments = files.sorted().toList();
        }
        assertTrue(segments.size() > 2, "small segments roll: " + segments);
        assertEquals(40, RaftWal.open(dir, 1024).groups().get(1).entries().size());
        flipLastByte(segments.get(0));
        IOException e = assertThrows(IOException.class, () -> RaftWal.open(dir, 1024));
        assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    }

    @Test
    void aRecordOverTheBoundIsRefusedWhenAppended() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        byte[] huge = new byte[RaftWal.RECORD_BYTES_MAX];
        assertThrows(IllegalArgumentException.class, () -> wal.append(1, null, List.of(new Entry(1, 1, huge))));
        wal.close();
    }

    @Test
    void aSyncWithoutFsyncWritesButDoesNotForce() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(3, new HardState(1, 3, 0), List.of());
        wal.sync(false);
        assertEquals(0, wal.syncs());
        assertEquals(new HardState(1, 3, 0), RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).groups().get(3)
                .hardState(), "written to the file (the page cache) at sync, forced or not");
        wal.close();
    }

    @Test
    void anEntryWithATailIsLoggedWholeAndComesBackWithItsHeadApart() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        Entry tailed = new Entry(2, 1, "head|".getBytes(), ByteBuffer.wrap("the batch".getBytes()));
        wal.append(5, new HardState(2, 5, 0), List.of(tailed));
        wal.sync(false);
        wal.close();
        Entry replayed = reopen().get(5).entries().get(0);
        assertEquals(tailed, replayed);
        assertEquals("head|", new String(replayed.head()));
        assertEquals("the batch", StandardCharsets.UTF_8.decode(replayed.tail()).toString());
    }

    @Test
    void aMachineThatHoldsTailsGetsItsEntriesBackAsHeadsWithTheirTailsHeld() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        Entry placed = new Entry(2, 1, "placement".getBytes(), ByteBuffer.wrap(new byte[4096]));
        Entry command = new Entry(2, 2, "an offset commit".getBytes());
        Entry notStored = new Entry(2, 3, "later".getBytes(), ByteBuffer.wrap("its batch".getBytes()));
        java.util.BitSet stored = new java.util.BitSet();
        stored.set(0);
        wal.append(5, new HardState(2, 5, 0), List.of(placed, command, notStored), stored);
        wal.sync(false);
        long bytes = wal.bytesOnDisk();
        wal.close();
        assertTrue(bytes < 300, "the 4 KiB tail is not in the log: " + bytes + " bytes");
        List<Entry> replayed = reopen().get(5).entries();
        assertEquals(Entry.withHeldTail(2, 1, "placement".getBytes(), 4096), replayed.get(0));
        assertEquals(4105, replayed.get(0).dataLength());
        assertEquals(command, replayed.get(1));
        assertTrue(!replayed.get(1).tailHeld(), "an entry without a tail is logged whole");
        assertEquals("later", new String(replayed.get(2).head()), "a tail not stored comes back apart");
        assertEquals("its batch", StandardCharsets.UTF_8.decode(replayed.get(2).tail()).toString());
    }

    @Test
    void withoutFsyncTheActiveSegmentIsWrittenBackAheadAndStillForcedWholeWhenItRolls() throws IOException {
        long segmentBytes = 3 * SegmentWriteback.AHEAD_BYTES;
        byte[] data = new byte[256 * 1024];
        RaftWal wal = RaftWal.open(dir, segmentBytes).wal();
        int entries = (int) (2 * segmentBytes / data.length);
        for (int i = 1; i <= entries; i++) {
            wal.append(1, new HardState(1, 1, i - 1), List.of(new Entry(1, i, data)));
            wal.sync(false);
        }
        // At least one: with one force in flight at most, a slow disk lets later thresholds pass without one.
        assertTrue(wal.writebacksStarted() >= 1, "background writebacks: " + wal.writebacksStarted());
        assertEquals(0, wal.syncs(), "no sync forced: the rolls' forces are not syncs");
        assertTrue(wal.segmentsOnDisk() >= 2, "rolled: " + wal.segmentsOnDisk());
        wal.close();
        assertEquals(entries, reopen().get(1).entries().size());

        try (RaftWal forced = RaftWal.open(dir, segmentBytes).wal()) {
            forced.append(1, null, List.of(new Entry(1, entries + 1, new byte[(int) SegmentWriteback.AHEAD_BYTES])));
            forced.sync(true);
            assertEquals(0, forced.writebacksStarted(), "a sync that forces leaves nothing to write back");
        }
    }

    private static void flipLastByte(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(raf.length() - 1);
            int b = raf.read();
            raf.seek(raf.length() - 1);
            raf.write(b ^ 0xFF);
        }
    }

    @Test
    void aSnapshotRecordDropsTheEntriesItHoldsAndAllOfThemWhenItReplacedTheLog() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "a"), entry(1, 2, "b"), entry(2, 3, "c")));
        wal.append(2, null, List.of(entry(1, 1, "x"), entry(1, 2, "y")));
        wal.sync(false);
        // Group 1 compacts through index 2; group 2 takes a leader's snapshot at 5 that its log did not hold.
        wal.appendSnapshot(1, new SnapshotMeta(2, 1));
        wal.appendSnapshot(2, new SnapshotMeta(5, 3));
        wal.append(2, new HardState(3, 1, 5), List.of(entry(3, 6, "z")));
        wal.sync(false);
        wal.close();
        Map<Integer, RaftWal.GroupState> groups = reopen();
        assertEquals(new SnapshotMeta(2, 1), groups.get(1).snapshot());
        assertEquals(List.of(entry(2, 3, "c")), groups.get(1).entries());
        assertEquals(new SnapshotMeta(5, 3), groups.get(2).snapshot());
        assertEquals(List.of(entry(3, 6, "z")), groups.get(2).entries());
        assertEquals(new HardState(3, 1, 5), groups.get(2).hardState());
    }

    @Test
    void anEntryThatDoesNotFollowTheLogIsCorruption() throws IOException {
        RaftWal wal = RaftWal.open(dir, 1024).wal();
        wal.append(1, null, List.of(entry(1, 1, "a")));
        wal.sync(false);
        assertThrows(IllegalArgumentException.class, () -> wal.append(1, null, List.of(entry(1, 3, "gap"))),
                "RaftWal refuses to write a gap");
        wal.close();
        // Written behind its back, a replay finds it.
        WalFilesForTests.appendRecord(RaftWal.segmentPath(dir, 0), WalEntryRecords.TYPE_ENTRY, 1,
                WalFilesForTests.entryBody(1, 3, "gap".getBytes()));
        IOException e = assertThrows(IOException.class, () -> RaftWal.open(dir, 1024));
        assertTrue(e.getMessage().contains("gap"), e.getMessage());
    }

    @Test
    void theSameSnapshotAppendedAgainKeepsTheEntriesAfterIt() throws IOException {
        // What a carried-forward snapshot record is: the group's current snapshot again, after later entries.
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "a"), entry(1, 2, "b"), entry(1, 3, "c"), entry(2, 4, "d")));
        wal.appendSnapshot(1, new SnapshotMeta(2, 1));
        wal.append(1, null, List.of(entry(2, 5, "e")));
        wal.appendSnapshot(1, new SnapshotMeta(2, 1));
        wal.sync(false);
        wal.close();
        RaftWal.GroupState state = reopen().get(1);
        assertEquals(new SnapshotMeta(2, 1), state.snapshot());
        assertEquals(List.of(entry(1, 3, "c"), entry(2, 4, "d"), entry(2, 5, "e")), state.entries());
    }

    @Test
    void aSnapshotOfAnotherTermThanTheLogsEntryReplacesTheLog() throws IOException {
        // A follower whose uncommitted entries 2 and 3 of term 1 lost to a leader's snapshot at 3 of term 2.
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "a"), entry(1, 2, "b"), entry(1, 3, "c"), entry(1, 4, "d")));
        wal.appendSnapshot(1, new SnapshotMeta(3, 2));
        wal.sync(false);
        wal.close();
        assertEquals(new RaftWal.GroupState(HardState.INITIAL, new SnapshotMeta(3, 2), List.of()), reopen().get(1));
    }

    @Test
    void aSnapshotThatGoesBackOrHasNoIndexIsRefused() throws IOException {
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "a"), entry(1, 2, "b"), entry(1, 3, "c")));
        wal.appendSnapshot(1, new SnapshotMeta(2, 1));
        assertThrows(IllegalArgumentException.class, () -> wal.appendSnapshot(1, new SnapshotMeta(1, 1)));
        assertThrows(IllegalArgumentException.class, () -> wal.appendSnapshot(1, new SnapshotMeta(2, 2)));
        assertThrows(IllegalArgumentException.class, () -> wal.appendSnapshot(2, SnapshotMeta.NONE));
        assertThrows(IllegalArgumentException.class, () -> wal.append(1, null, List.of(entry(1, 2, "b"))),
                "an entry at or below the snapshot");
        wal.close();
    }

    @Test
    void aLogWrittenBeforeReplacementRecordsStillDropsEntriesForASnapshotItDoesNotHold() throws IOException {
        // Type 3 used to mean either kind; replayed from its first segment, such a log recovers as it did.
        RaftWal wal = RaftWal.open(dir, RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        wal.append(1, null, List.of(entry(1, 1, "a"), entry(1, 2, "b")));
        wal.sync(false);
        wal.close();
        WalFilesForTests.appendRecord(RaftWal.segmentPath(dir, 0), RaftWal.TYPE_SNAPSHOT, 1,
                ByteBuffer.allocate(16).putLong(5).putLong(3).flip());
        assertEquals(new RaftWal.GroupState(HardState.INITIAL, new SnapshotMeta(5, 3), List.of()), reopen().get(1));
    }
}
