package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.maelstrom.harness.Harness;
import dev.cairn.maelstrom.harness.HarnessConfig;
import dev.cairn.maelstrom.harness.HarnessResult;
import dev.cairn.maelstrom.harness.LatencyDistribution;
import dev.cairn.maelstrom.harness.OpFn;
import dev.cairn.maelstrom.harness.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real node ({@code target/cairn-maelstrom-node}, the launcher Maelstrom would run, one JVM per node) under the
 * harness's kafka workload (maelstrom.md 3): valid histories with 1 and 3 nodes, with and without partitions, and
 * the deliberately broken {@code --unsafe-ack-before-commit} variant caught by the checker. The package phase
 * builds the launcher and the fat jar before failsafe runs these.
 */
class KafkaNodeIT {
    private static final Path LAUNCHER = Path.of("target", "cairn-maelstrom-node").toAbsolutePath();
    private static final Path LOG_DIR = Path.of("target", "kafka-node-it-logs");

    private static HarnessConfig.Builder config(String name, int nodes, double seconds, String... nodeArgs) {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is built by mvn package");
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(nodeArgs));
        return HarnessConfig.builder()
                .command(command)
                .nodeCount(nodes)
                .rate(100)
                .timeLimitS(seconds)
                .finalPhase(3, 10)
                .seed(5)
                .logs(LOG_DIR.resolve(name), false);
    }

    private static HarnessResult run(HarnessConfig config) throws Exception {
        HarnessResult result = Harness.run(config);
        System.out.print(Report.format(result));
        return result;
    }

    /** Valid also means every acknowledged send was read by the final polls: an unseen one makes a run invalid. */
    private static void assertValidAndSendsWork(HarnessResult result) {
        assertTrue(result.valid(), () -> Report.format(result));
        assertEquals(0, result.exitCode());
        assertTrue(result.check().unseenCounts().isEmpty(), () -> "acknowledged sends never polled: "
                + result.check().unseenCounts());
        long[] sends = result.stats().byFn().get(OpFn.SEND);
        assertTrue(sends[1] > 0, () -> "no send succeeded: " + Report.format(result));
    }

    @Test
    @Timeout(90)
    void singleNodeIsValidAndAvailable() throws Exception {
        HarnessResult result = run(config("single", 1, 15).build());
        assertValidAndSendsWork(result);
        assertTrue(result.stats().okFraction() >= 0.99, () -> "availability " + result.stats().okFraction());
        assertTrue(result.stats().invocations() > 1000, () -> "too few ops at rate 100: " + result.stats());
        assertEquals(0, result.stats().net().serverMessages(), "one node sends no node-to-node messages");
    }

    @Test
    @Timeout(90)
    void threeNodesReplicateAndStayAvailableWithoutFaults() throws Exception {
        HarnessResult result = run(config("three", 3, 15, "--partitions", "2")
                .latency(5, LatencyDistribution.EXPONENTIAL).build());
        assertValidAndSendsWork(result);
        assertTrue(result.stats().okFraction() >= 0.99, () -> "availability " + result.stats().okFraction());
        assertTrue(result.stats().serverMsgsPerOp() > 1, "every write is replicated over node-to-node messages");
    }

    @Test
    @Timeout(120)
    void threeNodesUnderPartitionsAreValid() throws Exception {
        HarnessResult result = run(config("three-partitions", 3, 25, "--partitions", "2")
                .latency(10, LatencyDistribution.EXPONENTIAL)
                .partition(true, 3)
                .build());
        assertValidAndSendsWork(result);
        assertTrue(result.nemesisEvents().stream().anyMatch(event -> event.contains("start-partition")),
                () -> "nemesis events " + result.nemesisEvents());
        assertTrue(result.stats().net().droppedByPartition() > 0, "partitions dropped node-to-node messages");
    }

    @Test
    @Timeout(90)
    void acknowledgingBeforeCommitIsCaught() throws Exception {
        HarnessResult result = run(config("unsafe-ack", 3, 8, "--unsafe-ack-before-commit")
                .latency(5, LatencyDistribution.EXPONENTIAL).build());
        assertFalse(result.valid(), () -> Report.format(result));
        assertEquals(1, result.exitCode());
        Set<String> caught = result.check().anomalies().keySet();
        Set<String> lostOrDiverging = Set.of("lost-write", "unseen", "inconsistent-offsets", "duplicate");
        assertTrue(caught.stream().anyMatch(lostOrDiverging::contains),
                () -> "expected a lost or diverging write, found " + result.check().counts());
    }

    /** Cairn's own Raft core (docs/multi-raft.md) instead of Ratis: the same checks under partitions. */
    @Test
    @Timeout(120)
    void threeNodesOnCairnsOwnRaftUnderPartitionsAreValid() throws Exception {
        HarnessResult result = run(config("three-partitions-cairn-raft", 3, 25, "--partitions", "2", "--raft", "cairn")
                .latency(10, LatencyDistribution.EXPONENTIAL)
                .partition(true, 3)
                .build());
        assertValidAndSendsWork(result);
        assertTrue(result.stats().net().droppedByPartition() > 0, "partitions dropped node-to-node messages");
    }

    @Test
    @Timeout(90)
    void singleNodeOnCairnsOwnRaftIsValidAndAvailable() throws Exception {
        HarnessResult result = run(config("single-cairn-raft", 1, 15, "--raft", "cairn").build());
        assertValidAndSendsWork(result);
        assertTrue(result.stats().okFraction() >= 0.99, () -> "availability " + result.stats().okFraction());
        assertEquals(0, result.stats().net().serverMessages(), "one node sends no node-to-node messages");
    }
}
