package dev.cairn.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded chaos while the group's voters change one at a time ({@link Membership}): five replicas, of which 1-3 start
 * as the voters and 4-5 outside the group; leaders walk the configuration toward random targets (adding, removing,
 * removing themselves) while proposals run, the network misbehaves and replicas crash. {@link SimCluster} checks
 * safety after every step, and that no replica is elected outside its own voters. Then everything heals, the
 * configuration is moved to {@code [3, 4, 5]} (the reassignment of a partition to other brokers), the replicas that
 * left are stopped (as a broker removes its copy), and the new group must commit on every voter and go quiet.
 * {@code -Dsim.seed=N} runs one seed; {@code -Dsim.seeds=N} runs seeds 1 to N.
 */
@Tag("simulation")
class MembershipSimulationTest {

    private static final int SEEDS = 80;
    private static final int WAL_SEEDS = 20;
    private static final int CHAOS_TICKS = 1_500;
    private static final int RECOVERY_TICKS_MAX = 2_000;
    private static final List<List<Integer>> TARGETS = List.of(List.of(1, 2, 3), List.of(3, 4, 5),
            List.of(1, 2, 3, 4, 5), List.of(2, 4), List.of(5), List.of(1, 4, 5));
    private static final List<Integer> FINAL = List.of(3, 4, 5);

    static LongStream seeds() {
        String seed = System.getProperty("sim.seed");
        int seeds = Integer.getInteger("sim.seeds", SEEDS);
        return seed != null ? LongStream.of(Long.parseLong(seed)) : LongStream.range(1, seeds + 1L);
    }

    static LongStream walSeeds() {
        return seeds().limit(Integer.getInteger("sim.seeds") != null ? Long.MAX_VALUE : WAL_SEEDS);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void votersChangeOneAtATimeUnderChaosAndTheNewGroupRecovers(long seed) {
        SimCluster cluster = new SimCluster(seed, 3, 2, RaftConfig.defaults(), SimCluster.Faults.CHAOS);
        recover(chaos(cluster, seed), seed);
    }

    /** The same with every replica persisting through a RaftWal: configurations survive restarts and compactions. */
    @ParameterizedTest
    @MethodSource("walSeeds")
    void configurationsSurviveRestartsFromTheWriteAheadLog(long seed, @TempDir Path dir) {
        SimCluster cluster = new SimCluster(seed, 3, 2, RaftConfig.defaults(), SimCluster.Faults.CHAOS);
        cluster.persistTo(dir);
        recover(chaos(cluster, seed), seed);
    }

    private static SimCluster chaos(SimCluster cluster, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 17 + 5);
        int size = cluster.ids.size();
        List<Integer> target = TARGETS.get(random.nextInt(TARGETS.size()));
        int proposals = 0;
        for (int tick = 0; tick < CHAOS_TICKS; tick++) {
            double dice = random.nextDouble();
            int someone = 1 + random.nextInt(size);
            if (dice < 0.25) {
                if (cluster.replica(someone).up) {
                    cluster.propose(someone, "c" + proposals++);
                }
            } else if (dice < 0.26) {
                cluster.crash(someone);
            } else if (dice < 0.28) {
                if (!cluster.replica(someone).up) {
                    cluster.restart(someone);
                }
            } else if (dice < 0.29) {
                cluster.cut(someone, 1 + random.nextInt(size));
            } else if (dice < 0.295) {
                cluster.isolate(someone);
            } else if (dice < 0.31) {
                cluster.heal();
            } else if (dice < 0.32) {
                target = TARGETS.get(random.nextInt(TARGETS.size()));
            } else if (dice < 0.40) {
                stepToward(cluster, target);
            } else if (dice < 0.42) {
                int leader = cluster.leader();
                if (leader != 0) {
                    cluster.catchUp(leader, someone);
                }
            }
            cluster.tick();
        }
        return cluster;
    }

    /** The leader, if any, proposes the next one-voter step from its voters toward {@code target}. */
    private static long stepToward(SimCluster cluster, List<Integer> target) {
        int leader = cluster.leader();
        if (leader == 0) {
            return 0;
        }
        List<Integer> next = nextStep(cluster.replica(leader).node.voters(), target);
        return next == null ? 0 : cluster.changeVoters(leader, next);
    }

    /** Adds the first missing target voter, else removes the first voter not in the target; null when there. */
    static List<Integer> nextStep(List<Integer> current, List<Integer> target) {
        List<Integer> next = new ArrayList<>(current);
        for (int voter : target) {
            if (!current.contains(voter)) {
                next.add(voter);
                return next;
            }
        }
        for (int voter : current) {
            if (!target.contains(voter)) {
                next.remove(Integer.valueOf(voter));
                return next;
            }
        }
        return null;
    }

    private static String describe(SimCluster cluster) {
        StringBuilder out = new StringBuilder();
        for (int id : cluster.ids) {
            RaftNode node = cluster.replica(id).node;
            out.append("\n  ").append(node.status()).append(" voters ").append(node.voters())
                    .append(node.configurationPending() ? " (pending)" : "").append(" up ")
                    .append(cluster.replica(id).up);
        }
        return out.toString();
    }

    private static void recover(SimCluster cluster, long seed) {
        cluster.heal();
        cluster.faults = SimCluster.Faults.NONE;
        for (int id : cluster.ids) {
            if (!cluster.replica(id).up) {
                cluster.restart(id);
            }
        }
        boolean moved = cluster.runUntil(() -> {
            int leader = cluster.leader();
            if (leader == 0) {
                return false;
            }
            RaftNode node = cluster.replica(leader).node;
            if (Set.copyOf(node.voters()).equals(Set.copyOf(FINAL)) && !node.configurationPending()) {
                return true;
            }
            FINAL.stream().filter(id -> !node.voters().contains(id)).forEach(id -> cluster.catchUp(leader, id));
            stepToward(cluster, FINAL);
            return false;
        }, RECOVERY_TICKS_MAX);
        assertTrue(moved, "seed " + seed + ": the voters did not reach " + FINAL + " after healing: "
                + describe(cluster));
        for (int id : cluster.ids) {
            if (!FINAL.contains(id)) {
                cluster.crash(id);
            }
        }
        long[] proposedInTerm = {-1};
        boolean committedEverywhere = cluster.runUntil(() -> {
            int leader = cluster.leader();
            if (leader != 0 && cluster.replica(leader).node.status().term() != proposedInTerm[0]) {
                proposedInTerm[0] = cluster.replica(leader).node.status().term();
                cluster.propose(leader, "final");
            }
            return FINAL.stream().allMatch(id -> cluster.replica(id).applied.stream()
                    .anyMatch(e -> new String(e.data(), StandardCharsets.UTF_8).equals("final")));
        }, RECOVERY_TICKS_MAX);
        assertTrue(committedEverywhere, "seed " + seed + ": the new voters did not all apply a new entry");
        boolean quiet = cluster.runUntil(() -> FINAL.stream()
                .allMatch(id -> cluster.replica(id).node.status().quiesced()) && cluster.networkIdle(),
                RECOVERY_TICKS_MAX);
        assertTrue(quiet, "seed " + seed + ": the new group did not go quiet");
        int leader = cluster.leader();
        assertTrue(FINAL.contains(leader), "seed " + seed + ": leader " + leader + " is not among " + FINAL);
        long last = cluster.replica(leader).node.status().lastIndex();
        for (int id : FINAL) {
            assertEquals(last, cluster.replica(id).applied.size(), "seed " + seed + ": replica " + id + " applied");
            assertEquals(Set.copyOf(FINAL), Set.copyOf(cluster.replica(id).node.voters()),
                    "seed " + seed + ": replica " + id + "'s voters");
        }
    }
}
