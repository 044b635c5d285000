package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Compaction through the engine, and a follower that fell behind the compacted log caught up by a snapshot. */
@Timeout(120)
class EngineSnapshotTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static final int GROUPS = 6;

    @TempDir
    Path root;

    /** Per replica, per group: the machine's disk, kept across engine restarts. */
    private final Map<Integer, Map<Integer, SnapshotMachine.Disk>> disks = new HashMap<>();

    private void create(EngineCluster cluster, int replica) {
        Map<Integer, SnapshotMachine.Disk> mine = disks.computeIfAbsent(replica, r -> new HashMap<>());
        cluster.createGroups(replica, GROUPS, group -> new SnapshotMachine(mine.computeIfAbsent(group,
                g -> new SnapshotMachine.Disk())));
    }

    /** Every live replica snapshots every group and compacts its log to it. */
    private static void compactAll(EngineCluster cluster) {
        for (Map.Entry<Integer, RaftEngine> engine : cluster.engines.entrySet()) {
            for (int group = 0; group < GROUPS; group++) {
                SnapshotMachine machine = (SnapshotMachine) cluster.machines.get(engine.getKey()).get(group);
                long index = machine.snapshotNow();
                engine.getValue().compact(group, index).join();
            }
        }
    }

    private static List<String> commands(String prefix, int count) {
        List<String> commands = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            commands.add(prefix + i);
        }
        return commands;
    }

    /** With the loops applying entries themselves, and with two apply threads (restores wait for the lane). */
    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void aFollowerBehindTheCompactedLogCatchesUpFromASnapshotInManyChunks(int applyThreads) throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.applyThreads = applyThreads;
            cluster.snapshotChunkBytes = 16;
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                create(cluster, replica);
            }
            for (int group = 0; group < GROUPS; group++) {
                cluster.proposeAnywhere(group, "early" + group, WITHIN);
            }
            for (int group = 0; group < GROUPS; group++) {
                int g = group;
                EngineCluster.await("replica 3 applied group " + g, WITHIN,
                        () -> cluster.machines.get(3).get(g).commands().size() == 1);
            }
            cluster.kill(3);
            List<String> later = commands("later-", 40);
            for (int group = 0; group < GROUPS; group++) {
                for (String command : later) {
                    cluster.proposeAnywhere(group, command, WITHIN);
                }
            }
            compactAll(cluster);
            // One frame in four lost while the snapshots go: chunks and their answers must be sent again.
            cluster.network.dropOneIn = 4;
            cluster.start(3);
            create(cluster, 3);
            for (int group = 0; group < GROUPS; group++) {
                int g = group;
                List<String> expected = new ArrayList<>(List.of("early" + g));
                expected.addAll(later);
                EngineCluster.await("replica 3 caught up on group " + g, WITHIN,
                        () -> cluster.machines.get(3).get(g).commands().equals(expected));
                assertEquals(1, disks.get(3).get(g).restores, "group " + g + " was restored from a snapshot once");
            }
            cluster.network.dropOneIn = 0;
            // And entries after the snapshot follow it as usual.
            cluster.proposeAnywhere(0, "after", WITHIN);
            EngineCluster.await("replica 3 applied an entry after its snapshot", WITHIN,
                    () -> cluster.machines.get(3).get(0).commands().contains("after"));
            assertEquals(List.of(), cluster.failures);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void aReplicaRestartsFromItsCompactedLogAndItsMachinesState(int applyThreads) throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.applyThreads = applyThreads;
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                create(cluster, replica);
            }
            for (int group = 0; group < GROUPS; group++) {
                for (String command : commands("a", 5)) {
                    cluster.proposeAnywhere(group, command, WITHIN);
                }
            }
            for (int group = 0; group < GROUPS; group++) {
                int g = group;
                EngineCluster.await("group " + g + " applied everywhere", WITHIN, () -> cluster.machines.values()
                        .stream().allMatch(byGroup -> byGroup.get(g).commands().size() == 5));
            }
            compactAll(cluster);
            for (int replica = 1; replica <= 3; replica++) {
                cluster.kill(replica);
            }
            for (int replica = 1; replica <= 3; replica++) {
                cluster.start(replica);
                create(cluster, replica);
            }
            for (int group = 0; group < GROUPS; group++) {
                cluster.proposeAnywhere(group, "b", WITHIN);
            }
            for (int group = 0; group < GROUPS; group++) {
                int g = group;
                List<String> expected = new ArrayList<>(commands("a", 5));
                expected.add("b");
                EngineCluster.await("group " + g + " went on from its snapshot", WITHIN, () -> cluster.machines
                        .values().stream().allMatch(byGroup -> byGroup.get(g).commands().equals(expected)));
            }
            assertEquals(List.of(), cluster.failures);
        }
    }

    @Test
    void compactionPastTheAppliedIndexIsRefused() throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 1, 1)) {
            cluster.start(1);
            create(cluster, 1);
            cluster.proposeAnywhere(0, "x", WITHIN);
            RaftEngine engine = cluster.engines.get(1);
            CompletionException refused = assertThrows(CompletionException.class,
                    () -> engine.compact(0, 1_000).join());
            assertTrue(refused.getCause() instanceof IllegalArgumentException, refused.toString());
            assertThrows(CompletionException.class, () -> engine.compact(99, 1).join());
        }
    }
}
