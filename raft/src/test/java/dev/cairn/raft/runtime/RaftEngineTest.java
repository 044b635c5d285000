package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Engines of three replicas on a loopback network, many groups each: the runtime's behaviour end to end. */
@Timeout(120)
class RaftEngineTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path root;

    @Test
    void everyGroupElectsAndAppliesTheSameCommandsOnEveryReplica() throws Exception {
        int groups = 60;
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, groups);
            }
            for (int group = 0; group < groups; group++) {
                for (int i = 0; i < 3; i++) {
                    cluster.proposeAnywhere(group, "g" + group + "-" + i, WITHIN);
                }
            }
            for (int group = 0; group < groups; group++) {
                int g = group;
                List<String> expected = List.of("g" + g + "-0", "g" + g + "-1", "g" + g + "-2");
                EngineCluster.await("group " + g + " applied everywhere", WITHIN, () -> {
                    for (int replica = 1; replica <= 3; replica++) {
                        if (!cluster.machines.get(replica).get(g).commands().equals(expected)) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            assertEquals(List.of(), cluster.failures);
            for (RaftEngine engine : cluster.engines.values()) {
                assertEquals(3, engine.threadCount(), "two loops and the liveness thread, whatever the groups");
            }
        }
    }

    /**
     * Groups whose replica 1 is created with campaignFirst are led by replica 1, also when the other replicas start
     * running them only after its first requests went unanswered (they are created after replica 1's, a few ticks
     * later): it stands again every other tick, where the others' election timeouts are 10 ticks or more.
     */
    @Test
    void aReplicaCreatedToCampaignFirstBecomesTheLeader() throws Exception {
        int groups = 10;
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.startAll();
            RaftEngine first = cluster.engines.get(1);
            for (int group = 0; group < groups; group++) {
                CommandMachine machine = new RecordingMachine();
                cluster.machines.get(1).put(group, machine);
                first.createGroup(group, cluster.voters(), machine, true).join();
            }
            long framesBefore = cluster.network.messageFrames.get();
            EngineCluster.await("replica 1 asked for votes", WITHIN,
                    () -> cluster.network.messageFrames.get() > framesBefore);
            cluster.createGroups(2, groups);
            cluster.createGroups(3, groups);
            EngineCluster.await("every group has a leader", WITHIN, () -> IntStream.range(0, groups)
                    .allMatch(group -> cluster.leaderOf(group) != 0));
            assertEquals(List.of(), IntStream.range(0, groups).filter(group -> cluster.leaderOf(group) != 1).boxed()
                    .toList(), "groups led by another replica than the one created to campaign first");
        }
    }

    @Test
    void idleGroupsGoQuietAndOnlyPingsFlow() throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, 100);
            }
            for (int group = 0; group < 100; group++) {
                cluster.proposeAnywhere(group, "x", WITHIN);
            }
            // Quiet: a whole second (50 ticks) in which no frame carried any Raft message.
            EngineCluster.await("the groups went quiet", WITHIN, () -> {
                long before = cluster.network.messageFrames.get();
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
                return cluster.network.messageFrames.get() == before;
            });
            long pingsBefore = cluster.network.pings.get();
            EngineCluster.await("pings keep flowing", WITHIN, () -> cluster.network.pings.get() > pingsBefore + 10);
            // A proposal wakes its group.
            cluster.proposeAnywhere(7, "wake", WITHIN);
            EngineCluster.await("the woken group applied", WITHIN,
                    () -> cluster.machines.get(1).get(7).commands().contains("wake"));
            assertEquals(List.of(), cluster.failures);
        }
    }

    @Test
    void aKilledReplicasGroupsElectNewLeadersAndItRecoversFromItsLog() throws Exception {
        int groups = 40;
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, groups);
            }
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "before", WITHIN);
            }
            // Let the groups go quiet first: the failure detector must wake them.
            EngineCluster.await("quiet", WITHIN, () -> {
                long before = cluster.network.messageFrames.get();
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(500).toNanos());
                return cluster.network.messageFrames.get() == before;
            });
            List<Integer> ledByOne = new ArrayList<>();
            for (int group = 0; group < groups; group++) {
                if (cluster.leaderOf(group) == 1) {
                    ledByOne.add(group);
                }
            }
            cluster.kill(1);
            for (int group : ledByOne) {
                EngineCluster.await("group " + group + " has a new leader", WITHIN,
                        () -> cluster.leaderOf(group) != 0);
            }
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "after", WITHIN);
            }
            cluster.start(1);
            cluster.createGroups(1, groups);
            for (int group = 0; group < groups; group++) {
                int g = group;
                EngineCluster.await("replica 1 caught up on group " + g, WITHIN, () -> cluster.machines.get(1)
                        .get(g).commands().equals(List.of("before", "after")));
            }
            assertEquals(List.of(), cluster.failures);
        }
    }

    @Test
    void refusalsSayWhy() throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, 1);
            }
            cluster.proposeAnywhere(0, "x", WITHIN);
            int leader = cluster.leaderOf(0);
            int follower = leader % 3 + 1;
            ProposalRefusedException notLeader = refusal(cluster.engines.get(follower), 0);
            assertEquals(ProposalRefusedException.Reason.NOT_LEADER, notLeader.reason());
            assertEquals(leader, notLeader.leaderHint());
            assertEquals(ProposalRefusedException.Reason.UNKNOWN_GROUP,
                    refusal(cluster.engines.get(leader), 99).reason());
            RaftEngine closed = cluster.engines.get(follower);
            closed.close();
            assertEquals(ProposalRefusedException.Reason.CLOSED, refusal(closed, 0).reason());
        }
    }

    private static ProposalRefusedException refusal(RaftEngine engine, int group) {
        CompletionException failed = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> engine.propose(group, "y".getBytes(StandardCharsets.UTF_8)).join());
        return assertInstanceOf(ProposalRefusedException.class, failed.getCause());
    }

    @Test
    void leadershipMovesToTheReplicaAskedFor() throws Exception {
        int groups = 10;
        try (EngineCluster cluster = new EngineCluster(root, 3, 2)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, groups);
            }
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "before", WITHIN);
            }
            for (int group = 0; group < groups; group++) {
                int leader = cluster.leaderOf(group);
                int target = leader % 3 + 1;
                assertTrue(cluster.engines.get(leader).transferLeadership(group, target).join());
                int g = group;
                EngineCluster.await("group " + g + " is led by " + target, WITHIN,
                        () -> cluster.leaderOf(g) == target);
                assertEquals(Boolean.FALSE, cluster.engines.get(leader).transferLeadership(group, target).join(),
                        "only the leader hands over");
            }
            for (int group = 0; group < groups; group++) {
                cluster.proposeAnywhere(group, "after", WITHIN);
                int g = group;
                EngineCluster.await("group " + g + " applied both", WITHIN, () -> cluster.machines.values().stream()
                        .allMatch(byGroup -> byGroup.get(g).commands().equals(List.of("before", "after"))));
            }
            assertEquals(List.of(), cluster.failures);
        }
    }

    @Test
    void theLoopCountIsFixedByTheDirectory() throws Exception {
        try (EngineCluster first = new EngineCluster(root, 1, 3)) {
            first.start(1);
        }
        try (EngineCluster second = new EngineCluster(root, 1, 1)) {
            RaftEngine engine = second.start(1);
            assertEquals(3, engine.config().loops());
            assertTrue(engine.threadCount() == 4);
        }
    }
}
