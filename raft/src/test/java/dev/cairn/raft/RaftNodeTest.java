package dev.cairn.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Scenarios on a fault-free {@link SimCluster} (messages arrive the next tick), each citing what it checks: Raft's
 * paper (In Search of an Understandable Consensus Algorithm, extended version) or Ongaro's thesis.
 */
class RaftNodeTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults();
    private static final int TICKS_MAX = 200;

    private static SimCluster cluster(int size) {
        return new SimCluster(7, size, CONFIG, SimCluster.Faults.NONE);
    }

    private static int electLeader(SimCluster cluster) {
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0, TICKS_MAX), "no leader elected");
        return cluster.leader();
    }

    private static boolean appliedEverywhere(SimCluster cluster, long raftIndex) {
        return cluster.replicas.values().stream().filter(r -> r.up).allMatch(r -> r.applied.size() >= raftIndex);
    }

    /** Section 5.2 and 5.3: one leader, and an entry it takes is applied by every replica, in order. */
    @Test
    void threeReplicasElectOneLeaderWhoseEntriesEveryReplicaApplies() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        long first = cluster.propose(leader, "a");
        long second = cluster.propose(leader, "b");
        assertEquals(first + 1, second);
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, second), TICKS_MAX));
        for (SimCluster.Replica replica : cluster.replicas.values()) {
            assertEquals("b", new String(replica.applied.get((int) second - 1).data()));
        }
        assertEquals(RaftNode.REFUSED_NOT_LEADER, cluster.propose(leader % 3 + 1, "not here"));
    }

    @Test
    void aSingleReplicaLeadsAndCommitsAlone() {
        SimCluster cluster = cluster(1);
        int leader = electLeader(cluster);
        long raftIndex = cluster.propose(leader, "a");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), 2));
    }

    /**
     * A new group's preferred replica, told to campaign on its next tick, leads within a few ticks (a pre-vote round
     * and a vote round), each of several seeds, where an election timeout is at least {@code electionTicks}.
     */
    @Test
    void aReplicaToldToCampaignOnItsNextTickLeadsFirst() {
        for (int seed = 1; seed <= 20; seed++) {
            SimCluster cluster = new SimCluster(seed, 3, CONFIG, SimCluster.Faults.NONE);
            int preferred = seed % 3 + 1;
            cluster.replica(preferred).node.campaignOnNextTick();
            assertTrue(cluster.runUntil(() -> cluster.leader() != 0, CONFIG.electionTicks() / 2),
                    "seed " + seed + ": a leader within half an election timeout");
            assertEquals(preferred, cluster.leader(), "seed " + seed);
        }
    }

    /** Once a leader is known, the hint does nothing: a follower of a live leader does not disturb it. */
    @Test
    void campaignOnNextTickIsIgnoredWhenALeaderIsKnown() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        long term = cluster.replica(leader).node.status().term();
        int follower = leader % 3 + 1;
        assertTrue(cluster.runUntil(() -> cluster.replica(follower).node.status().leader() == leader, TICKS_MAX),
                "the follower learns its leader");
        int votesAsked = cluster.replica(follower).voteRequestsSent;
        cluster.replica(follower).node.campaignOnNextTick();
        for (int i = 0; i < 3 * CONFIG.electionTicks(); i++) {
            cluster.propose(leader, "x" + i);
            cluster.tick();
        }
        assertEquals(leader, cluster.leader());
        assertEquals(term, cluster.replica(leader).node.status().term());
        assertEquals(votesAsked, cluster.replica(follower).voteRequestsSent, "not even a pre-vote was asked for");
    }

    /** Section 5.3: a leader's entries replace a follower's conflicting, uncommitted ones. */
    @Test
    void aDeposedLeadersUncommittedEntriesAreReplaced() {
        SimCluster cluster = cluster(3);
        int old = electLeader(cluster);
        cluster.isolate(old);
        cluster.propose(old, "lost-1");
        cluster.propose(old, "lost-2");
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0 && cluster.leader() != old, TICKS_MAX));
        int next = cluster.leader();
        long kept = cluster.propose(next, "kept");
        cluster.heal();
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, kept), TICKS_MAX));
        List<String> applied = cluster.replica(old).applied.stream().map(e -> new String(e.data())).toList();
        assertTrue(applied.contains("kept"), applied.toString());
        assertTrue(!applied.contains("lost-1") && !applied.contains("lost-2"), applied.toString());
    }

    /** Thesis 9.6: a replica back from a partition cannot depose a working leader (pre-vote and leases). */
    @Test
    void aReplicaBackFromAPartitionDoesNotDeposeTheLeader() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        long term = cluster.replica(leader).node.status().term();
        int follower = leader % 3 + 1;
        cluster.isolate(follower);
        // Keep the group busy so it does not go quiet: the cut-off follower campaigns again and again meanwhile.
        for (int i = 0; i < 10 * CONFIG.electionTicks(); i++) {
            cluster.propose(leader, "x" + i);
            cluster.tick();
        }
        assertEquals(term, cluster.replica(follower).node.status().term(), "pre-vote changes no term");
        cluster.heal();
        long raftIndex = cluster.propose(leader, "after");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), TICKS_MAX));
        assertEquals(leader, cluster.leader());
        assertEquals(term, cluster.replica(leader).node.status().term());
    }

    /**
     * Thesis 3.10: a leader hands its leadership to an up-to-date follower, which wins the next term at once (well
     * within an election timeout, and although the third replica is still under the old leader's lease), and no
     * entry is lost; proposals are refused while the handover runs.
     */
    @Test
    void aLeaderHandsItsLeadershipToAFollowerWithinAnElectionTimeout() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        long before = cluster.propose(leader, "before");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, before), TICKS_MAX));
        long term = cluster.replica(leader).node.status().term();
        int target = leader % 3 + 1;
        assertTrue(cluster.replica(leader).node.transferLeadership(target));
        assertEquals(RaftNode.REFUSED_TRANSFERRING, cluster.propose(leader, "during"));
        assertTrue(cluster.runUntil(() -> cluster.leader() == target, CONFIG.electionTicks() / 2));
        assertEquals(term + 1, cluster.replica(target).node.status().term());
        long after = cluster.propose(target, "after");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, after), TICKS_MAX));
        for (SimCluster.Replica replica : cluster.replicas.values()) {
            List<String> applied = replica.applied.stream().map(e -> new String(e.data())).filter(c -> !c.isEmpty())
                    .toList();
            assertEquals(List.of("before", "after"), applied);
        }
    }

    /** Thesis 3.10: a follower that lags is caught up first; one that cannot be reached makes the leader give up. */
    @Test
    void aHandoverWaitsForALaggingTargetAndIsAbandonedWhenItCannotFinish() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        int target = leader % 3 + 1;
        cluster.isolate(target);
        long missed = 0;
        for (int i = 0; i < 5; i++) {
            missed = cluster.propose(leader, "missed-" + i);
        }
        long last = missed;
        assertTrue(cluster.runUntil(() -> cluster.replica(leader).node.status().commitIndex() >= last, TICKS_MAX));
        cluster.heal();
        assertTrue(cluster.replica(leader).node.transferLeadership(target));
        assertTrue(cluster.runUntil(() -> cluster.leader() == target, 2 * CONFIG.electionTicks()));
        assertTrue(cluster.replica(target).applied.size() >= last, "the new leader holds every committed entry");

        int other = 6 - leader - target;
        cluster.isolate(other);
        assertTrue(cluster.replica(target).node.transferLeadership(other));
        assertTrue(cluster.runUntil(() -> cluster.replica(target).node.transferee() == RaftNode.NONE,
                2 * CONFIG.electionTicks()), "an unreachable target is given up after an election timeout");
        assertEquals(target, cluster.leader());
        assertTrue(cluster.propose(target, "accepted again") > 0);
        assertTrue(!cluster.replica(leader).node.transferLeadership(target), "only a leader hands over");
    }

    /** Thesis 6.2: a leader cut off from its majority steps down within an election timeout or two. */
    @Test
    void aLeaderCutOffFromItsMajorityStepsDown() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        cluster.propose(leader, "keep busy");
        cluster.isolate(leader);
        assertTrue(cluster.runUntil(() -> cluster.replica(leader).node.status().role() != Role.LEADER,
                3 * CONFIG.electionTicks()));
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0 && cluster.leader() != leader, TICKS_MAX));
    }

    /** Issue 18: an idle group goes quiet (no messages at all), wakes for a proposal, and goes quiet again. */
    @Test
    void anIdleGroupGoesQuietAndWakesForAProposal() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        long delivered = cluster.messagesDelivered;
        cluster.run(100 * CONFIG.electionTicks());
        assertEquals(delivered, cluster.messagesDelivered, "a quiet group exchanged messages");
        long raftIndex = cluster.propose(leader, "wake");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), TICKS_MAX));
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        assertEquals(leader, cluster.leader());
    }

    /**
     * Followers learn of a commit a round trip after the leader, not at the next heartbeat: state read from follower
     * replicas stays fresh (the reason Ratis's commit-index entries were kept on, docs/write-path.md).
     */
    @Test
    void followersApplyACommittedEntryWithoutWaitingForAHeartbeat() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        long raftIndex = cluster.propose(leader, "fresh");
        cluster.deliverAllWithoutTicks();
        assertTrue(appliedEverywhere(cluster, raftIndex));
    }

    /** Issue 18: a quiet group whose leader dies elects another once the runtime reports the leader's broker down. */
    @Test
    void aQuietGroupFailsOverWhenTheLeadersBrokerIsReportedDown() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        cluster.crash(leader);
        // One randomized election timeout, or a few when the survivors split their votes.
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0, 6 * CONFIG.electionTicks()));
        int next = cluster.leader();
        assertNotEquals(leader, next);
        long raftIndex = cluster.propose(next, "after failover");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), TICKS_MAX));
        cluster.restart(leader);
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), TICKS_MAX));
    }

    /**
     * Issue 18: a follower whose broker is reported down is sent nothing and does not keep the group awake; when it
     * is back it is caught up, and the group goes quiet again.
     */
    @Test
    void aGroupGoesQuietWithoutAFollowerReportedDownAndCatchesItUpWhenItIsBack() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        int follower = leader % 3 + 1;
        cluster.crash(follower);
        long raftIndex = cluster.propose(leader, "while down");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex) && allQuiet(cluster), TICKS_MAX));
        long delivered = cluster.messagesDelivered;
        cluster.run(10 * CONFIG.electionTicks());
        assertEquals(delivered, cluster.messagesDelivered, "the quiet group sent messages");
        assertTrue(cluster.networkIdle(), "nothing was sent to the follower that is down");
        cluster.restart(follower);
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, raftIndex), TICKS_MAX));
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        assertEquals(leader, cluster.leader());
    }

    /** A quiet leader wakes when a follower that missed the quiesce heartbeat asks for a vote. */
    @Test
    void aFollowerThatRestartsBesideAQuietLeaderLearnsOfItWithoutAnElection() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        long term = cluster.replica(leader).node.status().term();
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
        int follower = leader % 3 + 1;
        cluster.crash(follower);
        cluster.restart(follower);
        assertTrue(cluster.runUntil(() -> cluster.replica(follower).node.status().leader() == leader, TICKS_MAX));
        assertEquals(term, cluster.replica(leader).node.status().term());
        assertTrue(cluster.runUntil(() -> allQuiet(cluster), TICKS_MAX));
    }

    /**
     * Raft section 7: a follower that missed entries the leader has compacted away is sent the leader's snapshot,
     * restores its state machine from it, and goes on with entries; a restart starts from the persisted snapshot.
     */
    @Test
    void aFollowerBehindTheLeadersSnapshotCatchesUpFromIt() {
        SimCluster cluster = cluster(3);
        int leader = electLeader(cluster);
        int follower = leader % 3 + 1;
        cluster.crash(follower);
        long raftIndex = 0;
        for (int i = 0; i < 20; i++) {
            raftIndex = cluster.propose(leader, "e" + i);
        }
        long last = raftIndex;
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, last), TICKS_MAX));
        cluster.replica(leader).compact();
        cluster.restart(follower);
        assertTrue(cluster.runUntil(() -> cluster.replica(follower).applied.size() >= last, TICKS_MAX));
        assertEquals(1, cluster.restores, "the follower restored the leader's snapshot once");
        assertEquals(cluster.replica(leader).applied, cluster.replica(follower).applied);
        long after = cluster.propose(leader, "after");
        assertTrue(cluster.runUntil(() -> appliedEverywhere(cluster, after), TICKS_MAX));
        cluster.replica(follower).compact();
        cluster.crash(follower);
        cluster.restart(follower);
        assertEquals(after, cluster.replica(follower).applied.size(), "restarted from its own snapshot");
    }

    /**
     * Raft section 5.4.2, figure 8: a leader must not commit an entry of an earlier term by counting the replicas
     * that hold it. Entry A (term 1) reaches two replicas; a replica that never saw it leads term 2 and logs its own
     * entry at A's index, alone; a leader of term 3 then copies A to a third replica. A is on a majority, but if the
     * leader committed it then, the term-2 leader, back, could still win and overwrite it: the simulation's check
     * that every replica applies the same entry at each index fails (as it does when maybeCommit skips the term).
     */
    @Test
    void anEntryOfAnEarlierTermOnAMajorityIsNotCommittedByCounting() {
        RaftConfig oneEntryPerAppend = new RaftConfig(10, 1, 20, 1, 1, 100);
        SimCluster cluster = new SimCluster(8, 5, oneEntryPerAppend, SimCluster.Faults.NONE);
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0 && appliedEverywhere(cluster, 1), TICKS_MAX));
        int first = cluster.leader();
        int second = first % 5 + 1;
        cluster.isolateExcept(first, second);
        long indexOfA = cluster.propose(first, "A");
        assertTrue(cluster.runUntil(() -> cluster.replica(second).node.status().lastIndex() == indexOfA, 5));
        // The replicas that never saw A elect a leader of their own, whose entry at A's index reaches nobody.
        cluster.crash(first);
        cluster.heal();
        cluster.isolate(second);
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0, TICKS_MAX));
        int lone = cluster.leader();
        cluster.isolate(lone);
        cluster.run(2);
        assertEquals(indexOfA, cluster.replica(lone).node.status().lastIndex());
        cluster.crash(lone);
        // A leader of a later term copies A to a third replica.
        cluster.heal();
        cluster.isolate(lone);
        cluster.restart(first);
        assertTrue(cluster.runUntil(() -> cluster.leader() == first || cluster.leader() == second, TICKS_MAX));
        int leader = cluster.leader();
        long leaderTerm = cluster.replica(leader).node.status().term();
        assertTrue(cluster.runUntil(() -> cluster.replicas.values().stream().filter(r -> r.up && r.id != first
                && r.id != second).anyMatch(r -> r.node.status().lastIndex() == indexOfA), TICKS_MAX));
        cluster.run(1);
        // Everyone holding the new leader's own entry goes, and what they sent is lost with them; the lone leader
        // of term 2 comes back.
        for (SimCluster.Replica replica : List.copyOf(cluster.replicas.values())) {
            if (replica.up && replica.node.termAt(indexOfA + 1) == leaderTerm) {
                cluster.crash(replica.id);
            }
        }
        cluster.heal();
        cluster.restart(lone);
        for (int id : cluster.voters) {
            if (!cluster.replica(id).up) {
                cluster.isolate(id);
            }
        }
        assertTrue(cluster.runUntil(() -> cluster.leader() != 0 && cluster.replicas.values().stream()
                .filter(r -> r.up).allMatch(r -> r.applied.size() >= indexOfA), TICKS_MAX),
                "the replicas left elect a leader and commit past A's index");
    }

    /** A leader that cannot commit refuses proposals past its bound of uncommitted entries. */
    @Test
    void aLeaderThatCannotCommitRefusesPastItsBound() {
        RaftConfig small = new RaftConfig(10, 1, 20, 1024, 4, 3);
        SimCluster cluster = new SimCluster(3, 3, small, SimCluster.Faults.NONE);
        int leader = electLeader(cluster);
        cluster.run(5);
        cluster.isolate(leader);
        RaftNode node = cluster.replica(leader).node;
        long uncommitted = node.status().lastIndex() - node.status().commitIndex();
        for (long i = uncommitted; i < small.uncommittedEntriesMax(); i++) {
            assertTrue(cluster.propose(leader, "p" + i) > 0);
        }
        assertEquals(RaftNode.REFUSED_BUSY, cluster.propose(leader, "one too many"));
    }

    @Test
    void aConfigWhoseTimingCannotWorkIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RaftConfig(1, 1, 20, 1024, 4, 3));
        assertThrows(IllegalArgumentException.class, () -> new RaftConfig(10, 1, 5, 1024, 4, 3));
    }

    @Test
    void aReplicaStartsFromWhatItPersisted() {
        List<Entry> entries = List.of(new Entry(1, 1, new byte[0]), new Entry(2, 2, new byte[] {1}));
        RaftNode node = RaftNode.start(1, List.of(1, 2, 3), CONFIG, new SplittableRandom(1),
                new HardState(2, 3, 1), entries, 0);
        assertEquals(2, node.status().term());
        assertEquals(2, node.status().lastIndex());
        assertEquals(List.of(entries.get(0)), node.ready().committed());
    }

    private static boolean allQuiet(SimCluster cluster) {
        return cluster.replicas.values().stream().filter(r -> r.up).allMatch(r -> r.node.status().quiesced())
                && cluster.networkIdle();
    }
}
