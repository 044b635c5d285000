package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With apply threads, a state machine that blocks holds up its own group only: the other groups of the same loop go
 * on committing and applying, and the blocked group catches up, in order, once its machine is free.
 */
@Timeout(120)
class ApplyThreadsTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static final int GROUPS = 4;

    @TempDir
    Path root;

    /**
     * Applies like {@link RecordingMachine}, but a "block" command counts {@code entered} down and waits for the
     * latch first, then fails if {@code failNow} says so (as a machine whose file was closed under it would).
     */
    private static final class BlockingMachine implements CommandMachine {
        private final RecordingMachine recorded = new RecordingMachine();
        private final CountDownLatch entered;
        private final CountDownLatch release;
        private final java.util.function.BooleanSupplier failNow;

        BlockingMachine(CountDownLatch release) {
            this(new CountDownLatch(0), release, () -> false);
        }

        BlockingMachine(CountDownLatch entered, CountDownLatch release, java.util.function.BooleanSupplier failNow) {
            this.entered = entered;
            this.release = release;
            this.failNow = failNow;
        }

        @Override
        public long appliedIndex() {
            return 0;
        }

        @Override
        public Object apply(Entry entry) {
            if (new String(entry.data(), StandardCharsets.UTF_8).equals("block")) {
                entered.countDown();
                try {
                    assertTrue(release.await(60, TimeUnit.SECONDS), "never released");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted in the middle of an apply", e);
                }
                if (failNow.getAsBoolean()) {
                    throw new IllegalStateException("its file was closed under it");
                }
            }
            return recorded.apply(entry);
        }

        @Override
        public List<String> commands() {
            return recorded.commands();
        }
    }

    @Test
    void aBlockedMachineHoldsUpOnlyItsOwnGroup() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.applyThreads = 2;
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, GROUPS, group -> group == 0 ? new BlockingMachine(release)
                        : new RecordingMachine());
            }
            assertEquals(1 + 1 + 2, cluster.engines.get(1).threadCount(), "one loop, liveness, two apply threads");
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            // Group 0 blocks on every replica: its machine holds the apply thread of its lane.
            cluster.engines.get(leader).propose(0, "block".getBytes(StandardCharsets.UTF_8));
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add("x" + i);
            }
            for (int group = 1; group < GROUPS; group++) {
                for (String command : expected) {
                    cluster.proposeAnywhere(group, command, WITHIN);
                }
            }
            for (int group = 1; group < GROUPS; group++) {
                int g = group;
                EngineCluster.await("group " + g + " applied everywhere while group 0 is blocked", WITHIN,
                        () -> cluster.machines.values().stream()
                                .allMatch(byGroup -> byGroup.get(g).commands().equals(expected)));
            }
            // Group 0 still takes proposals (they commit; they apply once its machine is free).
            var behind = cluster.engines.get(leader).propose(0, "behind".getBytes(StandardCharsets.UTF_8));
            assertEquals(List.of("first"), cluster.machines.get(leader).get(0).commands());
            release.countDown();
            behind.get(30, TimeUnit.SECONDS);
            EngineCluster.await("group 0 caught up in order everywhere", WITHIN, () -> cluster.machines.values()
                    .stream().allMatch(byGroup -> byGroup.get(0).commands().equals(List.of("first", "block",
                            "behind"))));
            assertEquals(List.of(), cluster.failures);
        } finally {
            release.countDown();
        }
    }
    /**
     * Closing an engine while one of its machines is in the middle of an apply: the apply thread is not interrupted,
     * close waits for it, and what the machine throws then is part of closing, not a failure of the engine (which
     * would stop the whole broker).
     */
    @Test
    void closingWhileAMachineAppliesWaitsForItAndIsNotAFailure() throws Exception {
        CountDownLatch entered = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.applyThreads = 2;
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                RaftEngine engine = cluster.engines.get(replica);
                cluster.createGroups(replica, 1, group -> new BlockingMachine(entered, release,
                        () -> engine.status(0) == null));
            }
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            cluster.engines.get(leader).propose(0, "block".getBytes(StandardCharsets.UTF_8));
            assertTrue(entered.await(WITHIN.toSeconds(), TimeUnit.SECONDS), "every replica applies the block");

            RaftEngine closing = cluster.engines.get(leader);
            java.util.concurrent.CompletableFuture<Void> closed =
                    java.util.concurrent.CompletableFuture.runAsync(closing::close);
            EngineCluster.await("the engine is closing", WITHIN, () -> closing.status(0) == null);
            release.countDown();
            closed.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
            assertEquals(List.of(), cluster.failures);
        } finally {
            release.countDown();
        }
    }
}
