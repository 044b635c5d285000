package dev.cairn.maelstrom.harness;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maelstrom's simulated network ({@code maelstrom.net}). Messages to or from a client ({@code c*}) are
 * delivered at once; node-to-node messages are delayed by the latency distribution and, when they reach the
 * receiver, dropped if the current grudge says the receiver rejects the sender (so messages already in flight
 * when a partition starts are dropped too, as in Maelstrom). Every message written to a node carries an
 * {@code id}.
 */
final class Network implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Network.class);

    /** Bound on node-to-node messages waiting out their latency; beyond it messages are dropped and logged. */
    static final int IN_FLIGHT_NODE_MESSAGES_MAX = 100_000;
    /** Bound on how many dropped-message warnings are logged (the counts are always kept). */
    static final int DROP_WARNINGS_LOGGED_MAX = 20;

    /** Receives the bodies of messages addressed to one client. */
    interface ClientInbox {
        void deliver(String src, ObjectNode body);
    }

    private final Map<String, NodeSink> nodes = new ConcurrentHashMap<>();
    private final Map<String, ClientInbox> clients = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor delayer = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "harness-network-latency");
        thread.setDaemon(true);
        return thread;
    });
    private final LatencyDistribution latencyDistribution;
    private final double latencyMeanMs;
    private final Random latencyRandom;
    private volatile Map<String, Set<String>> grudge = Map.of();

    private final AtomicLong nextMessageId = new AtomicLong();
    private final AtomicLong nextClientNumber = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong allMessages = new AtomicLong();
    private final AtomicLong serverMessages = new AtomicLong();
    private final AtomicLong clientMessages = new AtomicLong();
    private final AtomicLong droppedByPartition = new AtomicLong();
    private final AtomicLong droppedUnknownDest = new AtomicLong();
    private final AtomicLong malformedLines = new AtomicLong();

    Network(LatencyDistribution latencyDistribution, double latencyMeanMs, long seed) {
        this.latencyDistribution = latencyDistribution;
        this.latencyMeanMs = latencyMeanMs;
        this.latencyRandom = new Random(seed);
    }

    void addNode(NodeSink node) {
        nodes.put(node.nodeId(), node);
    }

    /** Puts a new client ({@code c0}, {@code c1}, ...) on the network and returns its id. */
    String openClient(ClientInbox inbox) {
        String clientId = "c" + nextClientNumber.getAndIncrement();
        clients.put(clientId, inbox);
        return clientId;
    }

    /** Takes a client off the network; later messages to it are dropped as unknown-destination. */
    void closeClient(String clientId) {
        clients.remove(clientId);
    }

    /** Replaces the partition: {@code newGrudge} maps a receiver to the senders whose messages it drops. */
    void setGrudge(Map<String, Set<String>> newGrudge) {
        grudge = Map.copyOf(newGrudge);
    }

    void heal() {
        grudge = Map.of();
    }

    private static boolean isClient(String id) {
        return id.startsWith("c");
    }

    /** A client sends {@code body} to node {@code dest}; delivered at once. */
    void sendFromClient(String clientId, String dest, ObjectNode body) {
        route(clientId, dest, body);
    }

    /** Called on a node's stdout thread for each line it prints. */
    void onNodeLine(String nodeId, String line) {
        JsonNode message;
        try {
            message = Json.MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            malformed(nodeId, line, "not JSON");
            return;
        }
        if (message == null || !message.isObject() || !message.path("src").isTextual()
                || !message.path("dest").isTextual() || !message.path("body").isObject()) {
            malformed(nodeId, line, "not a {src, dest, body} envelope");
            return;
        }
        route(message.get("src").asText(), message.get("dest").asText(), (ObjectNode) message.get("body"));
    }

    private void malformed(String nodeId, String line, String why) {
        if (malformedLines.incrementAndGet() <= DROP_WARNINGS_LOGGED_MAX) {
            LOG.warn("{} printed a line that is {}; dropped: {}", nodeId, why, line);
        }
    }

    private void route(String src, String dest, ObjectNode body) {
        NodeSink node = nodes.get(dest);
        ClientInbox client = clients.get(dest);
        if (node == null && client == null) {
            if (droppedUnknownDest.incrementAndGet() <= DROP_WARNINGS_LOGGED_MAX) {
                LOG.warn("message from {} to unknown destination {} dropped: {}", src, dest, body);
            }
            return;
        }
        allMessages.incrementAndGet();
        if (isClient(src) || isClient(dest)) {
            clientMessages.incrementAndGet();
            if (client != null) {
                client.deliver(src, body);
            } else {
                node.send(envelope(src, dest, body));
            }
            return;
        }
        serverMessages.incrementAndGet();
        double delayMs;
        synchronized (latencyRandom) {
            delayMs = latencyDistribution.sampleMs(latencyMeanMs, latencyRandom);
        }
        if (inFlight.incrementAndGet() > IN_FLIGHT_NODE_MESSAGES_MAX) {
            inFlight.decrementAndGet();
            LOG.warn("IN_FLIGHT_NODE_MESSAGES_MAX={} reached; message {} -> {} dropped", IN_FLIGHT_NODE_MESSAGES_MAX,
                src, dest);
            return;
        }
        delayer.schedule(() -> {
            inFlight.decrementAndGet();
            deliverToNode(src, node, body);
        }, (long) (delayMs * 1_000_000), TimeUnit.NANOSECONDS);
    }

    private void deliverToNode(String src, NodeSink node, ObjectNode body) {
        if (grudge.getOrDefault(node.nodeId(), Set.of()).contains(src)) {
            droppedByPartition.incrementAndGet();
            return;
        }
        node.send(envelope(src, node.nodeId(), body));
    }

    private String envelope(String src, String dest, ObjectNode body) {
        ObjectNode message = Json.MAPPER.createObjectNode();
        message.put("id", nextMessageId.getAndIncrement());
        message.put("src", src);
        message.put("dest", dest);
        message.set("body", body);
        return message.toString();
    }

    NetStats stats() {
        return new NetStats(allMessages.get(), serverMessages.get(), clientMessages.get(), droppedByPartition.get(),
            droppedUnknownDest.get(), malformedLines.get());
    }

    @Override
    public void close() {
        delayer.shutdownNow();
    }
}
