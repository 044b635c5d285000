package dev.cairn.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded chaos over whole groups (style.md point 13): random proposals while the network drops, duplicates, delays
 * and reorders messages, links are cut and replicas crash and restart. {@link SimCluster} checks safety after every
 * step. Then everything heals, and the group must elect a leader, commit a new entry on every replica, and go quiet.
 * A failure names its seed: {@code -Dsim.seed=N} runs that seed alone; {@code -Dsim.seeds=N} runs seeds 1 to N.
 */
@Tag("simulation")
class RaftSimulationTest {

    private static final int SEEDS = 120;
    /** Runs with a RaftWal per replica: they touch the disk, so fewer. */
    private static final int WAL_SEEDS = 30;
    private static final int CHAOS_TICKS = 1_500;
    private static final int RECOVERY_TICKS_MAX = 600;

    static LongStream seeds() {
        String seed = System.getProperty("sim.seed");
        int seeds = Integer.getInteger("sim.seeds", SEEDS);
        return seed != null ? LongStream.of(Long.parseLong(seed)) : LongStream.range(1, seeds + 1L);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void threeReplicasStaySafeUnderChaosAndRecover(long seed) {
        runChaosThenRecover(seed, 3);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void fiveReplicasStaySafeUnderChaosAndRecover(long seed) {
        runChaosThenRecover(seed, 5);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void threeReplicasStaySafeWhenMessagesArriveVeryLate(long seed) {
        recover(chaos(seed, 3, SimCluster.Faults.LATE), seed);
    }

    /** The same chaos with every replica persisting through a RaftWal and restarting from what it recovers. */
    @ParameterizedTest
    @MethodSource("walSeeds")
    void threeReplicasRestartFromTheirWriteAheadLogs(long seed, @TempDir Path dir) {
        SimCluster cluster = new SimCluster(seed, 3, RaftConfig.defaults(), SimCluster.Faults.CHAOS);
        cluster.persistTo(dir);
        recover(chaos(cluster, seed, 3), seed);
    }

    static LongStream walSeeds() {
        return seeds().limit(Integer.getInteger("sim.seeds") != null ? Long.MAX_VALUE : WAL_SEEDS);
    }

    private static void runChaosThenRecover(long seed, int size) {
        recover(chaos(seed, size, SimCluster.Faults.CHAOS), seed);
    }

    private static SimCluster chaos(long seed, int size, SimCluster.Faults faults) {
        return chaos(new SimCluster(seed, size, RaftConfig.defaults(), faults), seed, size);
    }

    private static SimCluster chaos(SimCluster cluster, long seed, int size) {
        SplittableRandom random = new SplittableRandom(seed * 31 + size);
        int proposals = 0;
        for (int tick = 0; tick < CHAOS_TICKS; tick++) {
            double dice = random.nextDouble();
            int someone = 1 + random.nextInt(size);
            if (dice < 0.3) {
                if (cluster.replica(someone).up) {
                    cluster.propose(someone, "c" + proposals++);
                }
            } else if (dice < 0.31) {
                cluster.crash(someone);
            } else if (dice < 0.33) {
                if (!cluster.replica(someone).up) {
                    cluster.restart(someone);
                }
            } else if (dice < 0.34) {
                cluster.cut(someone, 1 + random.nextInt(size));
            } else if (dice < 0.345) {
                cluster.isolate(someone);
            } else if (dice < 0.36) {
                cluster.heal();
            } else if (dice < 0.37) {
                int leader = cluster.leader();
                if (leader != 0) {
                    cluster.transferLeadership(leader, someone);
                }
            }
            cluster.tick();
        }
        return cluster;
    }

    private static void recover(SimCluster cluster, long seed) {
        if (System.getProperty("sim.stats") != null) {
            System.out.println("seed " + seed + " restores " + cluster.restores + " transfers " + cluster.transfers);
        }
        cluster.heal();
        cluster.faults = SimCluster.Faults.NONE;
        for (int id : cluster.voters) {
            if (!cluster.replica(id).up) {
                cluster.restart(id);
            }
        }
        // A proposal to a leader that is about to lose its term is lost: propose again to each new leader until
        // every replica applied it.
        long[] proposedInTerm = {-1};
        boolean committedEverywhere = cluster.runUntil(() -> {
            int leader = cluster.leader();
            if (leader != 0 && cluster.replica(leader).node.status().term() != proposedInTerm[0]) {
                proposedInTerm[0] = cluster.replica(leader).node.status().term();
                cluster.propose(leader, "final");
            }
            return cluster.replicas.values().stream().allMatch(r -> r.applied.stream()
                    .anyMatch(e -> new String(e.data(), StandardCharsets.UTF_8).equals("final")));
        }, RECOVERY_TICKS_MAX);
        boolean quiet = cluster.runUntil(() -> cluster.replicas.values().stream()
                .allMatch(r -> r.node.status().quiesced()) && cluster.networkIdle(), RECOVERY_TICKS_MAX);
        assertTrue(quiet, "seed " + seed + ": the group did not go quiet after healing");
        long last = cluster.replica(cluster.leader()).node.status().lastIndex();
        long delivered = cluster.messagesDelivered;
        cluster.run(RaftConfig.defaults().electionTicks() * 10);
        assertEquals(delivered, cluster.messagesDelivered, "seed " + seed + ": a quiet group sent messages");
        for (SimCluster.Replica replica : cluster.replicas.values()) {
            assertEquals(last, replica.applied.size(), "seed " + seed + ": replica " + replica.id + " applied");
        }
    }
}
