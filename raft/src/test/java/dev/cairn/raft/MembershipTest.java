package dev.cairn.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Changing a group's voters one at a time (Ongaro's thesis, chapter 4), on a fault-free {@link SimCluster}: replicas
 * 1-3 start as the voters, 4 and 5 outside the group.
 */
class MembershipTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults();
    private static final int TICKS_MAX = 400;

    private static SimCluster cluster() {
        return new SimCluster(11, 3, 2, CONFIG, SimCluster.Faults.NONE);
    }

    /** Elects a leader and waits until it committed an entry of its term (before that it changes no voters). */
    private static int electLeader(SimCluster cluster) {
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0, TICKS_MAX), "no leader elected");
        RaftNode node = cluster.replica(cluster.leader()).node;
        assertTrue(cluster.runUntil(() -> node.termAt(node.status().commitIndex()) == node.status().term(),
                TICKS_MAX), "the leader commits an entry of its term");
        return cluster.leader();
    }

    private static boolean applied(SimCluster cluster, int id, long raftIndex) {
        return cluster.replica(id).applied.size() >= raftIndex;
    }

    private static long committedChange(SimCluster cluster, int leader, List<Integer> next) {
        long raftIndex = cluster.changeVoters(leader, next);
        assertTrue(raftIndex > 0, "refused: " + raftIndex);
        assertTrue(cluster.runUntil(() -> !cluster.replica(leader).node.configurationPending(), TICKS_MAX),
                "the change to " + next + " commits");
        return raftIndex;
    }

    /** A leader catches up at most VOTERS_MAX learners at once; asking again for one it catches up is fine. */
    @Test
    void learnersAreCapped() {
        SimCluster cluster = cluster();
        RaftNode leader = cluster.replica(electLeader(cluster)).node;
        int first = 100;
        for (int i = 0; i < Membership.VOTERS_MAX; i++) {
            assertTrue(leader.catchUp(first + i), "learner " + i);
        }
        assertTrue(leader.catchUp(first), "already catching up");
        assertFalse(leader.catchUp(first + Membership.VOTERS_MAX), "one learner past the cap");
        assertFalse(leader.replicatingTo().contains(first + Membership.VOTERS_MAX));
    }

    /** Replicas outside the voters never stand for election, however long they hear nothing. */
    @Test
    void aReplicaOutsideTheVotersNeverCampaigns() {
        SimCluster cluster = cluster();
        int leader = electLeader(cluster);
        cluster.run(CONFIG.electionTicks() * 20);
        assertEquals(0, cluster.replica(4).voteRequestsSent);
        assertEquals(0, cluster.replica(5).voteRequestsSent);
        assertEquals(leader, cluster.leader());
    }

    /**
     * Section 4.1: the new configuration is in force on the leader as soon as it is appended (a majority of four is
     * three), and the new voter, caught up first as a learner (section 4.2.1), applies everything.
     */
    @Test
    void aCaughtUpLearnerBecomesAVoterAndCountsTowardTheMajority() {
        SimCluster cluster = cluster();
        int leader = electLeader(cluster);
        long before = cluster.propose(leader, "before");
        cluster.catchUp(leader, 4);
        assertTrue(cluster.runUntil(() -> applied(cluster, 4, before), TICKS_MAX), "the learner catches up");
        assertEquals(List.of(1, 2, 3), cluster.replica(4).node.voters(), "a learner is not a voter");
        long change = committedChange(cluster, leader, List.of(1, 2, 3, 4));
        assertTrue(cluster.runUntil(() -> applied(cluster, 4, change), TICKS_MAX));
        assertEquals(List.of(1, 2, 3, 4), cluster.replica(4).node.voters());
        // With two of the old voters down, the new one makes the majority of four.
        List<Integer> others = List.of(1, 2, 3).stream().filter(id -> id != leader).toList();
        cluster.crash(others.get(0));
        long after = cluster.propose(leader, "after");
        assertTrue(cluster.runUntil(() -> applied(cluster, 4, after) && applied(cluster, leader, after), TICKS_MAX));
        cluster.crash(others.get(1));
        long stuck = cluster.propose(leader, "without a majority");
        cluster.run(CONFIG.electionTicks() / 2);
        assertFalse(applied(cluster, leader, stuck), "two of four is no majority");
    }

    /** Section 4.2.2: a leader that removes itself leads until the change commits, then hands over at once. */
    @Test
    void aLeaderThatRemovesItselfStepsDownOnceTheChangeCommits() {
        SimCluster cluster = cluster();
        int leader = electLeader(cluster);
        List<Integer> rest = List.of(1, 2, 3).stream().filter(id -> id != leader).toList();
        long change = cluster.changeVoters(leader, rest);
        assertTrue(change > 0);
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0 && cluster.leader() != leader, CONFIG.electionTicks()),
                "a remaining voter leads within an election timeout (TimeoutNow)");
        assertTrue(rest.contains(cluster.leader()));
        assertEquals(Role.FOLLOWER, cluster.replica(leader).node.status().role());
        long after = cluster.propose(cluster.leader(), "after");
        assertTrue(cluster.runUntil(() -> rest.stream().allMatch(id -> applied(cluster, id, after)), TICKS_MAX));
        cluster.run(CONFIG.electionTicks() * 10);
        assertTrue(rest.contains(cluster.leader()), "the removed replica never leads again");
    }

    /** One change at a time (section 4.1), only after the leader committed an entry of its term (Ongaro's fix). */
    @Test
    void changesAreOneVoterAtATimeAndOneAtATime() {
        SimCluster cluster = cluster();
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0, TICKS_MAX));
        int leader = cluster.leader();
        RaftNode node = cluster.replica(leader).node;
        if (node.termAt(node.status().commitIndex()) != node.status().term()) {
            assertEquals(RaftNode.REFUSED_CHANGE_PENDING, node.proposeVoters(List.of(1, 2, 3, 4)),
                    "no change before the leader commits an entry of its term");
        }
        assertThrows(IllegalArgumentException.class, () -> node.proposeVoters(List.of(1, 2, 3, 4, 5)));
        assertThrows(IllegalArgumentException.class, () -> node.proposeVoters(List.of(1, 2, 3)));
        assertThrows(IllegalArgumentException.class, () -> node.proposeVoters(List.of(4, 5, 1)));
        assertThrows(IllegalArgumentException.class, () -> node.proposeVoters(List.of(1, 2, 3, 4, 4)));
        assertTrue(cluster.runUntil(() -> !node.configurationPending()
                && node.termAt(node.status().commitIndex()) == node.status().term(), TICKS_MAX));
        assertTrue(cluster.changeVoters(leader, List.of(1, 2, 3, 4)) > 0);
        assertEquals(RaftNode.REFUSED_CHANGE_PENDING, node.proposeVoters(List.of(1, 2, 3, 4, 5)));
        int follower = leader % 3 + 1;
        assertEquals(RaftNode.REFUSED_NOT_LEADER, cluster.replica(follower).node.proposeVoters(List.of(1, 2, 3, 5)));
    }

    /** A state machine's command may not look like a configuration entry; machines see those as no-ops. */
    @Test
    void commandsCannotForgeAConfigurationAndMachinesSeeNoOps() {
        SimCluster cluster = cluster();
        int leader = electLeader(cluster);
        byte[] forged = Membership.encode(List.of(1, 2));
        assertThrows(IllegalArgumentException.class,
                () -> cluster.replica(leader).node.propose(forged, Entry.NO_TAIL));
        assertThrows(IllegalArgumentException.class, () -> cluster.replica(leader).node.propose(
                new byte[] {forged[0], forged[1]}, ByteBuffer.wrap(forged, 2, forged.length - 2)));
        Entry configuration = new Entry(3, 9, forged);
        assertEquals(List.of(1, 2), Membership.voters(configuration));
        Entry seen = Membership.forMachine(configuration);
        assertEquals(0, seen.dataLength());
        assertEquals(9, seen.raftIndex());
        Entry command = new Entry(3, 10, new byte[] {1, 2, 3});
        assertNull(Membership.voters(command));
        List<Entry> plain = List.of(command);
        assertTrue(plain == Membership.forMachine(plain), "a list without configurations is not copied");
        assertNotEquals(configuration, Membership.forMachine(List.of(configuration)).get(0));
    }

    /** A snapshot carries the configuration at its index, so a replica restarted from it keeps its voters. */
    @Test
    void aCompactionKeepsTheConfigurationInTheSnapshot() {
        SimCluster cluster = cluster();
        int leader = electLeader(cluster);
        cluster.catchUp(leader, 4);
        committedChange(cluster, leader, List.of(1, 2, 3, 4));
        long last = cluster.propose(leader, "x");
        assertTrue(cluster.runUntil(() -> applied(cluster, 4, last), TICKS_MAX));
        SimCluster.Replica four = cluster.replica(4);
        four.compact();
        assertEquals(List.of(1, 2, 3, 4), four.snapshot.voters());
        cluster.crash(4);
        cluster.restart(4);
        assertEquals(List.of(1, 2, 3, 4), four.node.voters(), "not the starting voters [1, 2, 3]");
    }
}
