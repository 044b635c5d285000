package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Role;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /**
     * After an election every replica's published status agrees (Raft 5.2: one leader per term, and its followers
     * know it); proposals then move the commit and applied indexes on every replica, with the loop applying and
     * with apply threads (whose applied index is read as they move it).
     */
    @ParameterizedTest(name = "applyThreads={0}")
    @ValueSource(ints = {0, 2})
    void statusShowsOneLeaderAndTheIndexesMovingOnEveryReplica(int applyThreads) throws Exception {
        int groups = 4;
        try (EngineCluster cluster = threeReplicas(groups, applyThreads)) {
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "elected", WITHIN);
                int g = group;
                EngineCluster.await("group " + g + "'s replicas agree on a leader", WITHIN,
                        () -> agreedLeader(cluster, g) != 0);
                int leader = agreedLeader(cluster, group);
                GroupStatus led = cluster.engines.get(leader).status(group);
                assertEquals(Role.LEADER, led.role());
                assertEquals(0, led.snapshotIndex(), "nothing compacted");
                long before = led.commitIndex();
                for (int i = 0; i < 5; i++) {
                    cluster.engines.get(leader).propose(group, ("p" + i).getBytes(StandardCharsets.UTF_8))
                            .get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
                }
                EngineCluster.await("group " + g + " committed and applied 5 more everywhere", WITHIN, () -> {
                    for (RaftEngine engine : cluster.engines.values()) {
                        GroupStatus status = engine.status(g);
                        if (status.commitIndex() < before + 5 || status.appliedIndex() < before + 5) {
                            return false;
                        }
                    }
                    return true;
                });
                for (RaftEngine engine : cluster.engines.values()) {
                    GroupStatus status = engine.status(group);
                    assertTrue(status.appliedIndex() <= status.commitIndex(), status::toString);
                    assertEquals(leader, status.leader(), "no election meanwhile");
                }
            }
            assertEquals(List.of(), cluster.failures);
        }
    }

    /** The leader every replica's status names, in one term, when exactly one of them leads and serves; else 0. */
    private static int agreedLeader(EngineCluster cluster, int group) {
        Map<Integer, GroupStatus> byReplica = new HashMap<>();
        cluster.engines.forEach((replica, engine) -> byReplica.put(replica, engine.status(group)));
        GroupStatus any = byReplica.values().iterator().next();
        int leader = any.leader();
        if (leader == 0) {
            return 0;
        }
        for (Map.Entry<Integer, GroupStatus> entry : byReplica.entrySet()) {
            GroupStatus status = entry.getValue();
            boolean leads = entry.getKey() == leader;
            if (status.leader() != leader || status.term() != any.term() || status.serving() != leads
                    || status.role() != (leads ? Role.LEADER : Role.FOLLOWER)) {
                return 0;
            }
        }
        return leader;
    }

    /**
     * With apply threads the applied index moves after the loop's last publication when a group goes quiet right
     * after committing: the status still shows it, without another Ready of the group.
     */
    @Test
    void anIndexAppliedAfterTheGroupWentQuietShows() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.applyThreads = 2;
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, 1, group -> new GatedMachine(release));
            }
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            long gated = cluster.engines.get(leader).status(0).commitIndex() + 1;
            CompletableFuture<Object> applied = cluster.engines.get(leader)
                    .propose(0, GatedMachine.GATE.getBytes(StandardCharsets.UTF_8));
            EngineCluster.await("the gated entry committed everywhere, applied nowhere", WITHIN,
                    () -> cluster.engines.values().stream().map(engine -> engine.status(0)).allMatch(
                            status -> status.commitIndex() == gated && status.appliedIndex() == gated - 1));
            awaitQuiet(cluster);
            release.countDown();
            applied.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            EngineCluster.await("every replica's status shows the entry applied", WITHIN,
                    () -> cluster.engines.values().stream().map(engine -> engine.status(0)).allMatch(
                            status -> status.appliedIndex() == gated && status.commitIndex() == gated));
            assertEquals(List.of(), cluster.failures);
        } finally {
            release.countDown();
        }
    }

    /** Applies like {@link RecordingMachine}, but the {@link #GATE} command waits for the latch first. */
    private static final class GatedMachine implements CommandMachine {
        static final String GATE = "gate";
        private final RecordingMachine recorded = new RecordingMachine();
        private final CountDownLatch release;

        GatedMachine(CountDownLatch release) {
            this.release = release;
        }

        @Override
        public long appliedIndex() {
            return 0;
        }

        @Override
        public Object apply(Entry entry) {
            if (new String(entry.data(), StandardCharsets.UTF_8).equals(GATE)) {
                try {
                    assertTrue(release.await(60, TimeUnit.SECONDS), "never released");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return recorded.apply(entry);
        }

        @Override
        public List<String> commands() {
            return recorded.commands();
        }
    }

    /** Waits (bounded) for half a second in which no frame carried a Raft message: every group is quiet. */
    private static void awaitQuiet(EngineCluster cluster) {
        EngineCluster.await("the groups went quiet", WITHIN, () -> {
            long before = cluster.network.messageFrames.get();
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
            return cluster.network.messageFrames.get() == before;
        });
    }

    /**
     * The leader's view of its followers (Raft figure 2's matchIndex): each reaches the leader's commit index once
     * the proposals are in; a follower answers that it does not lead.
     */
    @Test
    void theLeadersFollowersMatchReachesItsCommit() throws Exception {
        int groups = 3;
        try (EngineCluster cluster = threeReplicas(groups, 0)) {
            for (int group = 0; group < groups; group++) {
                for (int i = 0; i < 4; i++) {
                    cluster.proposeAnywhere(group, "c" + i, WITHIN);
                }
                int leader = cluster.leaderOf(group);
                RaftEngine leading = cluster.engines.get(leader);
                int g = group;
                EngineCluster.await("group " + g + "'s followers hold its commit", WITHIN, () -> {
                    GroupReplication replication = join(leading.replication(g));
                    return replication.leading() && replication.matchIndex().size() == 2 && replication.matchIndex()
                            .values().stream().allMatch(match -> match >= replication.commitIndex());
                });
                GroupReplication seen = join(leading.replication(group));
                assertEquals(leading.status(group).term(), seen.term());
                assertFalse(seen.matchIndex().containsKey(leader), "followers only");
                int follower = leader % 3 + 1;
                GroupReplication followerView = join(cluster.engines.get(follower).replication(group));
                assertFalse(followerView.leading());
                assertEquals(Map.of(), followerView.matchIndex());
                assertTrue(followerView.commitIndex() > 0);
            }
            assertEquals(ProposalRefusedException.Reason.UNKNOWN_GROUP, refusal(cluster.engines.get(1), 99));
            RaftEngine closed = cluster.engines.get(1);
            closed.close();
            assertEquals(ProposalRefusedException.Reason.CLOSED, refusal(closed, 0));
            assertEquals(List.of(), cluster.failures);
        }
    }

    /**
     * A quiet group sends nothing, yet its leader still reports every follower holding every entry: it went quiet
     * only once they did (CockroachDB's quiesced ranges; docs/multi-raft.md, "Quiescence").
     */
    @Test
    void aQuietGroupReportsEveryFollowerCaughtUp() throws Exception {
        int groups = 5;
        try (EngineCluster cluster = threeReplicas(groups, 0)) {
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "before quiet", WITHIN);
            }
            awaitQuiet(cluster);
            for (int group = 0; group < groups; group++) {
                GroupReplication replication = join(cluster.engines.get(cluster.leaderOf(group)).replication(group));
                assertTrue(replication.leading());
                assertEquals(replication.lastIndex(), replication.commitIndex(), "every entry committed");
                assertEquals(2, replication.matchIndex().size());
                for (long match : replication.matchIndex().values()) {
                    assertEquals(replication.lastIndex(), match, replication::toString);
                }
            }
            assertEquals(List.of(), cluster.failures);
        }
    }

    private static GroupReplication join(CompletableFuture<GroupReplication> replication) {
        try {
            return replication.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException | ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    private static ProposalRefusedException.Reason refusal(RaftEngine engine, int group) {
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> engine.replication(group).get(WITHIN.toMillis(), TimeUnit.MILLISECONDS));
        return assertInstanceOf(ProposalRefusedException.class, failed.getCause()).reason();
    }

    /**
     * The engine's failure detector, as ISR reporting reads it: a peer never heard from is silent forever; a live one
     * stays within a few ping periods even with its groups quiet (EngineCluster pings every 50 ms); a stopped one's
     * silence grows.
     */
    @Test
    void aStoppedPeersSilenceGrowsWhileALiveOnesStaysSmall() throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            RaftEngine first = cluster.start(1);
            cluster.createGroups(1, 2);
            assertEquals(Long.MAX_VALUE, first.peerSilentMs(2), "never heard");
            assertEquals(Long.MAX_VALUE, first.peerSilentMs(7), "a voter of no group here");
            assertEquals(Long.MAX_VALUE, first.peerSilentMs(1), "itself");
            for (int replica = 2; replica <= 3; replica++) {
                cluster.start(replica);
                cluster.createGroups(replica, 2);
            }
            cluster.proposeAnywhere(0, "x", WITHIN);
            cluster.proposeAnywhere(1, "y", WITHIN);
            EngineCluster.await("replica 1 hears both peers", WITHIN,
                    () -> first.peerSilentMs(2) < 1_000 && first.peerSilentMs(3) < 1_000);
            awaitQuiet(cluster);
            cluster.kill(3);
            EngineCluster.await("replica 3 silent past a second while replica 2 is heard", WITHIN,
                    () -> first.peerSilentMs(3) > 1_000 && first.peerSilentMs(2) < 500);
            long silent = first.peerSilentMs(3);
            EngineCluster.await("replica 3's silence keeps growing", WITHIN, () -> first.peerSilentMs(3) > silent);
            RaftEngine second = cluster.engines.get(2);
            EngineCluster.await("replica 2 sees the same", WITHIN,
                    () -> second.peerSilentMs(3) > 1_000 && second.peerSilentMs(1) < 500);
            assertEquals(List.of(), cluster.failures);
        }
    }

    @Test
    void aGroupThisEngineDoesNotHoldHasNoStatus() throws Exception {
        try (EngineCluster cluster = threeReplicas(2, 0)) {
            cluster.proposeAnywhere(0, "x", WITHIN);
            RaftEngine engine = cluster.engines.get(1);
            assertNull(engine.status(99), "never created");
            assertNotNull(engine.status(1));
            engine.removeGroup(1).get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            assertNull(engine.status(1), "removed");
            assertNotNull(engine.status(0));
            engine.close();
            assertNull(engine.status(0), "closed");
        }
    }

    @Test
    void aProposalThatTakesTheArrayAppliesItOnEveryReplica() throws Exception {
        try (EngineCluster cluster = threeReplicas(1, 0)) {
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            Object raftIndex = cluster.engines.get(leader).proposeOwned(0, "owned".getBytes(StandardCharsets.UTF_8), Entry.NO_TAIL)
                    .get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(Long.class, raftIndex.getClass(), "the machine's answer: the entry's index");
            EngineCluster.await("every replica applied it", WITHIN, () -> cluster.machines.values().stream()
                    .allMatch(byGroup -> byGroup.get(0).commands().equals(List.of("first", "owned"))));
            assertEquals(List.of(), cluster.failures);
        }
    }

    private EngineCluster threeReplicas(int groups, int applyThreads) throws Exception {
        EngineCluster cluster = new EngineCluster(root, 3, 2);
        cluster.applyThreads = applyThreads;
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
