package dev.cairn.raft.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random appends (with truncations), snapshots the log holds and ones that replace it, the same snapshot again,
 * hard states alone, removals and reuse of group ids, syncs with and without fsync, clean reopens and crashes (a
 * close without sync, which loses the batch) over small segments, so that segments roll and are deleted all the
 * time. After every reopen the log must recover exactly the {@link WalModel} as of the last sync.
 *
 * <p>Bound on disk, checked at random points once the syncs have deleted all they would: the oldest segment, unless
 * it is the active one, holds an entry above its group's snapshot (so nothing at the head of the log was
 * deletable), counted from the segment files apart from RaftWal's bookkeeping; and at the end, once every group has
 * snapshotted its last entry, one segment is left, of at most max(segmentBytes, the largest batch) bytes.
 * {@code -Dwal.seeds=N} runs N seeds instead of the build's fixed set; a failure names its seed.
 */
class RaftWalRandomTest {

    private static final long SEGMENT_BYTES = 1024;
    private static final int GROUPS = 6;
    private static final int STEPS = 600;

    @TempDir
    Path dir;

    private SplittableRandom random;
    private RaftWal wal;
    private WalModel model = new WalModel();
    private WalModel synced = new WalModel();
    private final Map<Integer, Long> terms = new HashMap<>();
    private long batchBytes;
    private long largestBatchBytes;

    static LongStream seeds() {
        return LongStream.range(0, Long.getLong("wal.seeds", 20));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void whatTheLogRecoversIsTheModelWhateverItDeleted(long seed) throws IOException {
        random = new SplittableRandom(seed);
        open(seed);
        for (int step = 0; step < STEPS; step++) {
            step(seed);
        }
        for (int group : List.copyOf(model.groups.keySet())) {
            WalModel.Group state = model.groups.get(group);
            if (state.lastIndex() > state.snapshot.raftIndex()) {
                snapshot(group, new SnapshotMeta(state.lastIndex(), state.termAt(state.lastIndex())));
            }
        }
        drain();
        assertEquals(1, wal.segmentsOnDisk(), "seed " + seed + ": every entry is in a snapshot");
        assertTrue(wal.bytesOnDisk() <= Math.max(SEGMENT_BYTES, largestBatchBytes), "seed " + seed + ": "
                + wal.bytesOnDisk() + " bytes left, largest batch " + largestBatchBytes);
        wal.close();
        open(seed);
        wal.close();
    }

    private void step(long seed) throws IOException {
        int group = random.nextInt(GROUPS);
        double dice = random.nextDouble();
        if (dice < 0.40) {
            appendEntries(group);
        } else if (dice < 0.47) {
            append(group, hardState(group), List.of());
        } else if (dice < 0.57) {
            snapshotHeld(group);
        } else if (dice < 0.60) {
            snapshotReplacingLog(group);
        } else if (dice < 0.62) {
            WalModel.Group state = model.groups.get(group);
            if (state != null && state.snapshot.raftIndex() > 0) {
                snapshot(group, state.snapshot);
            }
        } else if (dice < 0.645) {
            wal.removeGroup(group);
            model.removeGroup(group);
            batchBytes += 8 + 5;
        } else if (dice < 0.90) {
            sync(random.nextInt(4) == 0);
        } else if (dice < 0.93) {
            sync(false);
            wal.close();
            open(seed);
        } else if (dice < 0.95) {
            // A crash: what the batch held is lost.
            wal.close();
            model = synced.copy();
            batchBytes = 0;
            open(seed);
        } else {
            drain();
            checkTheOldestSegmentIsHeld(seed);
        }
    }

    private void open(long seed) throws IOException {
        RaftWal.Opened opened = RaftWal.open(dir, SEGMENT_BYTES);
        wal = opened.wal();
        assertEquals(synced.states(), opened.groups(), "seed " + seed + ": what the log recovered");
    }

    private void sync(boolean fsync) throws IOException {
        wal.sync(fsync);
        synced = model.copy();
        largestBatchBytes = Math.max(largestBatchBytes, batchBytes);
        batchBytes = 0;
    }

    private void drain() throws IOException {
        for (long deleted = -1; deleted != wal.segmentsDeleted(); ) {
            deleted = wal.segmentsDeleted();
            sync(false);
        }
    }

    private void checkTheOldestSegmentIsHeld(long seed) throws IOException {
        List<Map<Integer, Long>> segments = WalFilesForTests.entryIndexMaxBySegment(dir);
        assertEquals(segments.size(), wal.segmentsOnDisk());
        long bytes = 0;
        for (Path file : WalFilesForTests.segmentFiles(dir)) {
            bytes += Files.size(file);
        }
        assertEquals(bytes, wal.bytesOnDisk());
        if (segments.size() > 1) {
            boolean held = false;
            for (Map.Entry<Integer, Long> group : segments.get(0).entrySet()) {
                WalModel.Group state = model.groups.get(group.getKey());
                held |= state != null && state.snapshot.raftIndex() < group.getValue();
            }
            assertTrue(held, "seed " + seed + ": the oldest segment holds nothing needed: " + segments.get(0));
        }
    }

    private HardState hardState(int group) {
        WalModel.Group state = model.groups.get(group);
        long last = state == null ? 0 : state.lastIndex();
        return new HardState(term(group), random.nextInt(4), random.nextLong(last + 1));
    }

    private long term(int group) {
        return terms.computeIfAbsent(group, g -> 1L);
    }

    private void appendEntries(int group) {
        WalModel.Group state = model.groups.get(group);
        long snapshotIndex = state == null ? 0 : state.snapshot.raftIndex();
        long last = state == null ? 0 : state.lastIndex();
        long first = last + 1;
        if (last > snapshotIndex && random.nextInt(6) == 0) {
            // A new leader's entries replace the tail from an index the follower holds.
            first = snapshotIndex + 1 + random.nextLong(last - snapshotIndex);
            terms.put(group, term(group) + 1);
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
            entries.add(new Entry(term(group), first + i, new byte[random.nextInt(150)]));
        }
        append(group, random.nextBoolean() ? hardState(group) : null, entries);
    }

    private void append(int group, HardState hardState, List<Entry> entries) {
        wal.append(group, hardState, entries);
        model.append(group, hardState, entries);
        batchBytes += hardState == null ? 0 : 8 + 25;
        for (Entry entry : entries) {
            batchBytes += 8 + 25 + entry.data().length;
        }
    }

    private void snapshotHeld(int group) {
        WalModel.Group state = model.groups.get(group);
        if (state != null && state.lastIndex() > state.snapshot.raftIndex()) {
            long at = state.snapshot.raftIndex() + 1 + random.nextLong(state.lastIndex() - state.snapshot.raftIndex());
            snapshot(group, new SnapshotMeta(at, state.termAt(at)));
        }
    }

    /** A leader's snapshot, of a term newer than any entry the group holds, so the log does not hold it. */
    private void snapshotReplacingLog(int group) {
        WalModel.Group state = model.groups.get(group);
        long snapshotIndex = state == null ? 0 : state.snapshot.raftIndex();
        long last = state == null ? 0 : state.lastIndex();
        terms.put(group, term(group) + 1);
        snapshot(group, new SnapshotMeta(snapshotIndex + 1 + random.nextLong(last - snapshotIndex + 5),
                term(group)));
    }

    private void snapshot(int group, SnapshotMeta snapshot) {
        wal.appendSnapshot(group, snapshot);
        model.appendSnapshot(group, snapshot);
        batchBytes += 8 + 21;
    }
}
