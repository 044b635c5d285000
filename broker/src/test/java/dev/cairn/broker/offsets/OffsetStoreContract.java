package dev.cairn.broker.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every {@link OffsetStore} shares (architecture.md, "Offsets": commits stored with the
 * partition group's applied Raft index; replays idempotent; snapshots by checkpoint and restore).
 */
abstract class OffsetStoreContract {
    @TempDir
    Path tempDir;

    abstract OffsetStore open();

    /** Closes and reopens the store on the same data, as a broker restart does. */
    abstract OffsetStore reopen(OffsetStore store);

    @Test
    void commitsAreReadBackPerGroupAndPartition() {
        try (OffsetStore store = open()) {
            assertEquals(OffsetStore.NO_RAFT_INDEX, store.appliedRaftIndex("t", 0));
            assertTrue(store.commit("t", 0, 5, Map.of("g1", new CommittedOffset(42, "meta", 1000, 8),
                    "g2", new CommittedOffset(7, null, 1001))));
            assertTrue(store.commit("t", 1, 3, Map.of("g1", new CommittedOffset(9, "", 1002))));
            assertTrue(store.commit("u", 0, 2, Map.of("g1", new CommittedOffset(11, "x", 1003))));
            assertEquals(Optional.of(new CommittedOffset(42, "meta", 1000, 8)), store.fetch("g1", "t", 0));
            assertEquals(Optional.of(new CommittedOffset(7, null, 1001)), store.fetch("g2", "t", 0));
            assertEquals(Optional.empty(), store.fetch("g3", "t", 0));
            assertEquals(Map.of("g1", new CommittedOffset(42, "meta", 1000, 8), "g2", new CommittedOffset(7, null, 1001)),
                    store.fetchAll("t", 0));
            assertEquals(Map.of("g1", new CommittedOffset(9, "", 1002)), store.fetchAll("t", 1));
            assertEquals(5, store.appliedRaftIndex("t", 0));
            assertEquals(3, store.appliedRaftIndex("t", 1));
        }
    }

    @Test
    void replayedEntriesAreRefused() {
        try (OffsetStore store = open()) {
            assertTrue(store.commit("t", 0, 10, Map.of("g", new CommittedOffset(100, null, 1))));
            assertFalse(store.commit("t", 0, 10, Map.of("g", new CommittedOffset(999, null, 2))), "same index");
            assertFalse(store.commit("t", 0, 4, Map.of("g", new CommittedOffset(999, null, 2))), "older index");
            assertEquals(100, store.fetch("g", "t", 0).orElseThrow().offset());
            assertTrue(store.commit("t", 0, 11, Map.of()), "an entry without offsets still advances the index");
            assertEquals(11, store.appliedRaftIndex("t", 0));
        }
    }

    @Test
    void deletionRemovesOneGroupAndAdvancesTheIndexOnce() {
        try (OffsetStore store = open()) {
            store.commit("t", 0, 1, Map.of("g1", new CommittedOffset(42, "meta", 1000),
                    "g2", new CommittedOffset(7, null, 1001)));
            store.commit("t", 1, 1, Map.of("g1", new CommittedOffset(9, null, 1002)));
            assertTrue(store.delete("t", 0, 2, "g1"));
            assertEquals(Optional.empty(), store.fetch("g1", "t", 0));
            assertEquals(Map.of("g2", new CommittedOffset(7, null, 1001)), store.fetchAll("t", 0));
            assertEquals(Optional.of(new CommittedOffset(9, null, 1002)), store.fetch("g1", "t", 1), "other partition");
            assertEquals(2, store.appliedRaftIndex("t", 0));
            assertTrue(store.commit("t", 0, 3, Map.of("g1", new CommittedOffset(50, null, 1003))));
            assertFalse(store.delete("t", 0, 3, "g1"), "a replayed deletion changes nothing");
            assertEquals(50, store.fetch("g1", "t", 0).orElseThrow().offset());
            assertTrue(store.delete("t", 0, 4, "absent"), "deleting nothing still advances the index");
            assertEquals(4, store.appliedRaftIndex("t", 0));
        }
    }

    @Test
    void offsetsAndAppliedIndexSurviveRestart() {
        OffsetStore store = open();
        for (int raftIndex = 1; raftIndex <= 200; raftIndex++) {
            store.commit("t", raftIndex % 3, raftIndex, Map.of("g" + raftIndex % 5,
                    new CommittedOffset(raftIndex * 10L, "m" + raftIndex, raftIndex)));
        }
        try (OffsetStore reopened = reopen(store)) {
            assertEquals(198, reopened.appliedRaftIndex("t", 0));
            assertEquals(199, reopened.appliedRaftIndex("t", 1));
            assertEquals(200, reopened.appliedRaftIndex("t", 2));
            assertEquals(new CommittedOffset(2000, "m200", 200), reopened.fetch("g0", "t", 2).orElseThrow());
            assertEquals(5, reopened.fetchAll("t", 0).size());
        }
    }

    @Test
    void removedPartitionForgetsItsOffsetsAndIndexSoARecreatedOneStartsAfresh() {
        try (OffsetStore store = open()) {
            assertTrue(store.commit("t", 0, 50, Map.of("g1", new CommittedOffset(15, null, 1),
                    "g2", new CommittedOffset(3, null, 2))));
            assertTrue(store.commit("t", 1, 40, Map.of("g1", new CommittedOffset(12, null, 3))));
            store.removePartition("t", 0);
            assertEquals(Map.of(), store.fetchAll("t", 0));
            assertEquals(OffsetStore.NO_RAFT_INDEX, store.appliedRaftIndex("t", 0));
            assertEquals(Map.of("g1", new CommittedOffset(12, null, 3)), store.fetchAll("t", 1), "other partitions stay");
            assertEquals(40, store.appliedRaftIndex("t", 1));
            assertTrue(store.commit("t", 0, 2, Map.of("g1", new CommittedOffset(2, null, 4))),
                    "the recreated partition's group starts again at low Raft indexes");
            assertEquals(Optional.of(new CommittedOffset(2, null, 4)), store.fetch("g1", "t", 0));
        }
    }

    @Test
    void replacePartitionInstallsOneGroupsSnapshotAlone() {
        try (OffsetStore store = open()) {
            store.commit("t", 0, 7, Map.of("a", new CommittedOffset(1, null, 1), "b", new CommittedOffset(2, null, 1)));
            store.commit("t", 1, 9, Map.of("a", new CommittedOffset(3, "x", 2)));
            store.commit("t1", 0, 4, Map.of("a", new CommittedOffset(5, null, 3)));
            Map<String, CommittedOffset> snapshot = store.fetchAll("t", 1);
            long applied = store.appliedRaftIndex("t", 1);

            store.replacePartition("t", 0, 50, Map.of("c", new CommittedOffset(9, "s", 4)));
            assertEquals(Map.of("c", new CommittedOffset(9, "s", 4)), store.fetchAll("t", 0));
            assertEquals(50, store.appliedRaftIndex("t", 0));
            assertEquals(snapshot, store.fetchAll("t", 1), "other partitions untouched");
            assertEquals(applied, store.appliedRaftIndex("t", 1));
            assertEquals(5, store.fetch("a", "t1", 0).orElseThrow().offset(), "a topic with a longer name too");
            store.replacePartition("t", 0, OffsetStore.NO_RAFT_INDEX, Map.of());
            assertEquals(Map.of(), store.fetchAll("t", 0));
            assertEquals(OffsetStore.NO_RAFT_INDEX, store.appliedRaftIndex("t", 0));
        }
    }

    @Test
    void checkpointAndRestoreRoundTrip() {
        try (OffsetStore store = open()) {
            store.commit("t", 0, 1, Map.of("g", new CommittedOffset(10, "a", 1)));
            store.commit("t", 1, 2, Map.of("g", new CommittedOffset(20, "b", 2)));
            Path checkpoint = tempDir.resolve("checkpoint-1");
            store.checkpoint(checkpoint);
            store.commit("t", 0, 3, Map.of("g", new CommittedOffset(30, "c", 3), "h", new CommittedOffset(1, null, 3)));
            store.commit("t", 2, 4, Map.of("g", new CommittedOffset(40, "d", 4)));
            store.restore(checkpoint);
            assertEquals(1, store.appliedRaftIndex("t", 0));
            assertEquals(2, store.appliedRaftIndex("t", 1));
            assertEquals(OffsetStore.NO_RAFT_INDEX, store.appliedRaftIndex("t", 2));
            assertEquals(Map.of("g", new CommittedOffset(10, "a", 1)), store.fetchAll("t", 0));
            assertEquals(Optional.empty(), store.fetch("g", "t", 2));
            assertTrue(store.commit("t", 0, 3, Map.of("g", new CommittedOffset(31, null, 5))), "replay after restore");
            assertEquals(31, store.fetch("g", "t", 0).orElseThrow().offset());
        }
    }
}
