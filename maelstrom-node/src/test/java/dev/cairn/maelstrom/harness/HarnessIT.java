package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.maelstrom.harness.fixture.ReferenceNodes;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * End-to-end runs of the harness against the reference node fixture, each a separate JVM per node. The correct
 * node must pass like it would under Maelstrom's kafka workload; each broken variant must make the checker
 * report the anomaly it commits (maelstrom.md 3.3).
 */
class HarnessIT {

    private static final Path LOG_DIR = Path.of("target", "harness-it-logs");

    private static HarnessConfig.Builder config(String mode, int nodes, double seconds) {
        return HarnessConfig.builder()
            .command(ReferenceNodes.command(mode))
            .nodeCount(nodes)
            .rate(100)
            .timeLimitS(seconds)
            .finalPhase(1, 10)
            .seed(42)
            .logs(LOG_DIR.resolve(mode + "-" + nodes), false);
    }

    private static HarnessResult run(HarnessConfig config) throws Exception {
        HarnessResult result = Harness.run(config);
        System.out.print(Report.format(result));
        return result;
    }

    @Test
    @Timeout(90)
    void correctSingleNodeIsValidAndAvailable() throws Exception {
        HarnessResult result = run(config("correct", 1, 20).build());
        assertTrue(result.valid(), () -> Report.format(result));
        assertEquals(0, result.exitCode());
        assertTrue(result.stats().okFraction() >= 0.99, () -> "availability " + result.stats().okFraction());
        assertTrue(result.stats().invocations() > 1000, () -> "too few ops at rate 100: " + result.stats());
        assertEquals(0, result.stats().net().serverMessages(), "one node sends no node-to-node messages");
    }

    @Test
    @Timeout(120)
    void correctThreeNodesUnderPartitionsAreValid() throws Exception {
        HarnessResult result = run(config("correct", 3, 25)
            .rate(50)
            .latency(10, LatencyDistribution.EXPONENTIAL)
            .partition(true, 3)
            .finalPhase(2, 10)
            .build());
        assertTrue(result.valid(), () -> Report.format(result));
        assertTrue(result.nemesisEvents().stream().anyMatch(event -> event.contains("start-partition")),
            () -> "nemesis events " + result.nemesisEvents());
        assertTrue(result.stats().net().droppedByPartition() > 0, "partitions dropped node-to-node messages");
        assertTrue(result.stats().serverMsgsPerOp() > 0, "followers forward to n0");
        assertTrue(result.history().stream().anyMatch(op -> op.error() != null && op.error().startsWith("code 13")),
            "nodes cut off from n0 answer with the indefinite error 13");
    }

    private static void assertReports(String mode, String anomaly) throws Exception {
        HarnessResult result = run(config(mode, 1, 6).finalPhase(0.5, 5).build());
        assertFalse(result.valid(), () -> Report.format(result));
        assertEquals(1, result.exitCode());
        assertTrue(result.check().anomalies().containsKey(anomaly),
            () -> mode + " should produce " + anomaly + " but found " + result.check().counts());
    }

    @Test
    @Timeout(60)
    void nodeThatLosesAcknowledgedWritesIsCaught() throws Exception {
        assertReports("lose-writes", "lost-write");
    }

    @Test
    @Timeout(60)
    void nodeThatStoresDuplicatesIsCaught() throws Exception {
        assertReports("duplicate", "duplicate");
    }

    @Test
    @Timeout(60)
    void nodeThatSkipsInsideAPollIsCaught() throws Exception {
        assertReports("skip-poll", "int-poll-skip");
    }

    @Test
    @Timeout(60)
    void replyWithAnUndocumentedFieldIsMalformedAndTheOpIndefinite() throws Exception {
        // Maelstrom's reply schemas are closed (maelstrom.md 2.3): every send becomes an info, none is ok.
        HarnessResult result = run(config("extra-field", 1, 3).finalPhase(0.5, 2).build());
        long[] sends = result.stats().byFn().get(OpFn.SEND);
        assertTrue(sends[0] > 0 && sends[1] == 0 && sends[3] == sends[0], () -> Report.format(result));
        assertTrue(result.history().stream().anyMatch(op -> op.error() != null
            && op.error().startsWith("malformed RPC response: unexpected field leader")));
        assertEquals(List.of(OpFn.SEND), result.check().fnsWithoutOk());
        assertFalse(result.valid());
    }

    @Test
    @Timeout(60)
    void nodeThatExitsEarlyFailsTheTestNamingItsExitStatus() throws Exception {
        HarnessResult result = run(config("crash-after-init", 1, 2).finalPhase(0, 1).build());
        assertFalse(result.valid());
        assertEquals(HarnessResult.EXIT_CRASHED, result.exitCode());
        assertEquals(List.of("Node n0 crashed with exit status 3"), result.failures());
    }
}
