package dev.cairn.maelstrom.harness;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one Maelstrom-style kafka test: starts the nodes, sends init, runs the workload (and the partition
 * nemesis) for the time limit, heals, waits for recovery, runs the final polls, kills the nodes by their own
 * process handles, checks the history and computes the statistics.
 */
public final class Harness {

    private static final Logger LOG = LoggerFactory.getLogger(Harness.class);

    /** A node must answer init within this long (maelstrom.db). */
    static final long INIT_TIMEOUT_MS = 10_000;

    private Harness() {
    }

    /** Runs the test described by {@code config}. */
    public static HarnessResult run(HarnessConfig config) throws IOException, InterruptedException {
        long startNs = System.nanoTime();
        LongSupplier clockNs = () -> System.nanoTime() - startNs;
        List<String> nodeIds = new ArrayList<>();
        for (int i = 0; i < config.nodeCount(); i++) {
            nodeIds.add("n" + i);
        }
        History history = new History();
        List<String> failures = new ArrayList<>();
        List<NodeProcess> nodes = new ArrayList<>();
        List<String> nemesisEvents = List.of();
        NetStats netStats;
        try (Network network = new Network(config.latencyDist(), config.latencyMs(), config.seed())) {
            try {
                for (String nodeId : nodeIds) {
                    NodeProcess node = NodeProcess.start(nodeId, config.command(), config.logDir(),
                        config.logStderr(), network::onNodeLine);
                    nodes.add(node);
                    network.addNode(node);
                }
                initAll(network, nodeIds, failures);
                if (failures.isEmpty()) {
                    nemesisEvents = runWorkload(config, network, nodeIds, history, clockNs);
                }
                for (NodeProcess node : nodes) {
                    Integer status = node.exitStatus();
                    if (status != null) {
                        failures.add("Node " + node.nodeId() + " crashed with exit status " + status);
                    }
                }
            } finally {
                for (NodeProcess node : nodes) {
                    node.destroy();
                }
            }
            netStats = network.stats();
        }
        if (!failures.isEmpty() && history.snapshot().isEmpty()) {
            failures.forEach(failure -> LOG.error("{}", failure));
            return new HarnessResult(config, List.copyOf(failures), null, null, nemesisEvents, List.of());
        }
        List<KafkaOp> ops = history.snapshot();
        return new HarnessResult(config, List.copyOf(failures), KafkaChecker.check(ops), RunStats.of(ops, netStats),
            nemesisEvents, ops);
    }

    private static void initAll(Network network, List<String> nodeIds, List<String> failures)
            throws InterruptedException {
        for (String nodeId : nodeIds) {
            RpcClient client = new RpcClient(network, nodeId, INIT_TIMEOUT_MS);
            try {
                ObjectNode init = Json.MAPPER.createObjectNode().put("type", "init").put("node_id", nodeId);
                ArrayNode ids = init.putArray("node_ids");
                nodeIds.forEach(ids::add);
                RpcClient.Reply reply = client.call(init);
                if (!(reply instanceof RpcClient.Reply.Ok ok) || !"init_ok".equals(ok.body().path("type").asText())) {
                    failures.add("Expected node " + nodeId + " to respond to an init message within "
                        + INIT_TIMEOUT_MS + " ms, but got " + reply);
                }
            } finally {
                client.close();
            }
        }
    }

    private static List<String> runWorkload(HarnessConfig config, Network network, List<String> nodeIds,
                                            History history, LongSupplier clockNs) throws InterruptedException {
        KafkaWorkload workload = new KafkaWorkload(config, network, nodeIds, history, clockNs);
        PartitionNemesis nemesis = config.partition()
            ? new PartitionNemesis(network, nodeIds, config.nemesisIntervalS(), config.seed(), clockNs) : null;
        long endNs = clockNs.getAsLong() + (long) (config.timeLimitS() * 1e9);
        if (nemesis != null) {
            nemesis.start(endNs);
        }
        try {
            LOG.info("Running kafka workload for {} s", config.timeLimitS());
            workload.runMainPhase(endNs);
        } finally {
            if (nemesis != null) {
                LOG.info("Healing cluster");
                nemesis.stop();
            }
        }
        LOG.info("Waiting for recovery... ({} s)", config.recoveryWaitS());
        long recoveredNs = clockNs.getAsLong() + (long) (config.recoveryWaitS() * 1e9);
        while (clockNs.getAsLong() < recoveredNs) {
            Thread.sleep(Math.max(1, (recoveredNs - clockNs.getAsLong()) / 1_000_000));
        }
        workload.runFinalPhase(clockNs.getAsLong() + (long) (config.finalPollsS() * 1e9));
        return nemesis == null ? List.of() : nemesis.events();
    }
}
