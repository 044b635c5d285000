package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the engine tells its host beside proposals (docs/multi-raft.md, "What the host can ask"): proposals that take
 * the caller's array, each group's published status, the leader's view of its followers, and how long each peer has
 * been silent. Three engines on a loopback network.
 */
@Timeout(120)
class EngineStatusTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path root;

    @Test
    void aProposalThatTakesTheArrayAppliesItOnEveryReplica() throws Exception {
        try (EngineCluster cluster = threeReplicas(1)) {
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            Object raftIndex = cluster.engines.get(leader).proposeOwned(0, "owned".getBytes(StandardCharsets.UTF_8))
                    .get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(Long.class, raftIndex.getClass(), "the machine's answer: the entry's index");
            EngineCluster.await("every replica applied it", WITHIN, () -> cluster.machines.values().stream()
                    .allMatch(byGroup -> byGroup.get(0).commands().equals(List.of("first", "owned"))));
            assertEquals(List.of(), cluster.failures);
        }
    }

    private EngineCluster threeReplicas(int groups) throws Exception {
        EngineCluster cluster = new EngineCluster(root, 3, 2);
        try {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, groups);
            }
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }
}
