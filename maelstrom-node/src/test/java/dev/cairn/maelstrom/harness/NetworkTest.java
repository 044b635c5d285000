package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The simulated network as maelstrom.md 2.1 and 6 describe it: client traffic is immediate and never
 * partitioned; node-to-node traffic waits out the latency and is dropped at delivery when the receiver's grudge
 * names the sender (so in-flight messages are lost when a partition starts).
 */
class NetworkTest {

    private static final long WAIT_MS_MAX = 5_000;

    /** A node that records the lines written to it. */
    private record RecordingNode(String nodeId, BlockingQueue<String> lines) implements NodeSink {
        RecordingNode(String nodeId) {
            this(nodeId, new LinkedBlockingQueue<>());
        }

        @Override
        public void send(String line) {
            lines.add(line);
        }

        JsonNode next() throws Exception {
            String line = lines.poll(WAIT_MS_MAX, TimeUnit.MILLISECONDS);
            assertNotNull(line, nodeId + " received nothing within " + WAIT_MS_MAX + " ms");
            return Json.MAPPER.readTree(line);
        }
    }

    private static String line(String src, String dest, String type) {
        return "{\"src\":\"" + src + "\",\"dest\":\"" + dest + "\",\"body\":{\"type\":\"" + type + "\"}}";
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadlineNs, "timed out waiting for " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Test
    void clientTrafficIsImmediateCarriesAnIdAndIsNeverPartitioned() throws Exception {
        try (Network network = new Network(LatencyDistribution.CONSTANT, 10_000, 1)) {
            RecordingNode n0 = new RecordingNode("n0");
            network.addNode(n0);
            network.addNode(new RecordingNode("n1"));
            BlockingQueue<ObjectNode> inbox = new LinkedBlockingQueue<>();
            String client = network.openClient((src, body) -> inbox.add(body));
            assertEquals("c0", client);
            network.setGrudge(Map.of("n0", Set.of("n1", client)));

            network.sendFromClient(client, "n0", Json.MAPPER.createObjectNode().put("type", "poll"));
            String received = n0.lines().poll();
            assertNotNull(received, "client messages are written at once, with no latency");
            JsonNode message = Json.MAPPER.readTree(received);
            assertTrue(message.get("id").isIntegralNumber());
            assertEquals("c0", message.get("src").asText());

            network.onNodeLine("n0", line("n0", client, "poll_ok"));
            assertEquals("poll_ok", inbox.poll().get("type").asText());
            assertEquals(new NetStats(2, 0, 2, 0, 0, 0), network.stats());
        }
    }

    @Test
    void nodeToNodeMessagesWaitOutTheLatency() throws Exception {
        try (Network network = new Network(LatencyDistribution.CONSTANT, 200, 1)) {
            RecordingNode n1 = new RecordingNode("n1");
            network.addNode(new RecordingNode("n0"));
            network.addNode(n1);
            long startNs = System.nanoTime();
            network.onNodeLine("n0", line("n0", "n1", "gossip"));
            assertEquals("gossip", n1.next().get("body").get("type").asText());
            assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(190), "delayed by ~200 ms");
            assertEquals(1, network.stats().serverMessages());
        }
    }

    @Test
    void aPartitionDropsMessagesAlreadyInFlightAndHealingRestoresTheLink() throws Exception {
        try (Network network = new Network(LatencyDistribution.CONSTANT, 300, 1)) {
            RecordingNode n1 = new RecordingNode("n1");
            network.addNode(new RecordingNode("n0"));
            network.addNode(n1);
            network.addNode(new RecordingNode("n2"));
            network.onNodeLine("n0", line("n0", "n1", "first"));
            network.setGrudge(PartitionShape.completeGrudge(List.of(List.of("n0"), List.of("n1", "n2"))));
            network.onNodeLine("n2", line("n2", "n1", "second"));
            // With constant latency, "second" is delivered after "first" would have been.
            assertEquals("second", n1.next().get("body").get("type").asText());
            assertEquals(1, network.stats().droppedByPartition());

            network.heal();
            network.onNodeLine("n0", line("n0", "n1", "third"));
            assertEquals("third", n1.next().get("body").get("type").asText());
            assertNull(n1.lines().poll(), "nothing else arrives");
            assertEquals(new NetStats(3, 3, 0, 1, 0, 0), network.stats());
        }
    }

    @Test
    void badLinesAndUnknownDestinationsAreCountedAndDropped() throws Exception {
        try (Network network = new Network(LatencyDistribution.CONSTANT, 0, 1)) {
            RecordingNode n1 = new RecordingNode("n1");
            network.addNode(new RecordingNode("n0"));
            network.addNode(n1);
            String client = network.openClient((src, body) -> { });
            network.closeClient(client);
            network.onNodeLine("n0", "this is not json");
            network.onNodeLine("n0", "{\"src\":\"n0\",\"body\":{}}");
            network.onNodeLine("n0", line("n0", client, "late_reply"));
            network.onNodeLine("n0", line("n0", "lin-kv", "read"));
            network.onNodeLine("n0", line("n0", "n1", "still_read"));
            assertEquals("still_read", n1.next().get("body").get("type").asText(),
                "the node's later lines are still routed");
            await(() -> network.stats().serverMessages() == 1, "one routed node message");
            assertEquals(new NetStats(1, 1, 0, 0, 2, 2), network.stats());
        }
    }
}
