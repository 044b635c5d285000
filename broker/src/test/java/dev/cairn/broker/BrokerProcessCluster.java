package dev.cairn.broker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Broker processes forming one cluster, each with its own data directory and log file under a test's directory:
 * on loopback ports picked free, or one broker per host of a {@link NetworkNamespaces} network on the fixed ports
 * (each namespace has its own). The brokers start together (a majority must be up to elect) and stop on close.
 */
final class BrokerProcessCluster implements AutoCloseable {
    private static final int NAMESPACE_KAFKA_PORT = 9092;
    private static final int NAMESPACE_RAFT_PORT = 9093;

    private final List<BrokerProcess> brokers = new ArrayList<>();
    private final List<String> kafkaAddresses = new ArrayList<>();

    private BrokerProcessCluster() {
    }

    /** {@code count} brokers on 127.0.0.1, with {@code extra} settings on top of the cluster's own. */
    static BrokerProcessCluster onLoopback(Path dir, int count, Map<String, String> extra) throws Exception {
        List<String> kafka = new ArrayList<>();
        List<String> raft = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            kafka.add("127.0.0.1:" + BrokerFixture.freePort());
            raft.add("127.0.0.1:" + BrokerFixture.freePort());
        }
        return start(dir, kafka, raft, extra, node -> List.of());
    }

    /** One broker in each host namespace of {@code network} (hosts 1..count). */
    static BrokerProcessCluster inNamespaces(Path dir, NetworkNamespaces network, int count, Map<String, String> extra)
            throws Exception {
        List<String> kafka = new ArrayList<>();
        List<String> raft = new ArrayList<>();
        for (int host = 1; host <= count; host++) {
            kafka.add(NetworkNamespaces.address(host) + ":" + NAMESPACE_KAFKA_PORT);
            raft.add(NetworkNamespaces.address(host) + ":" + NAMESPACE_RAFT_PORT);
        }
        return start(dir, kafka, raft, extra, node -> NetworkNamespaces.inNamespace(network.hostNamespace(node)));
    }

    private static BrokerProcessCluster start(Path dir, List<String> kafka, List<String> raft,
            Map<String, String> extra, IntFunction<List<String>> launcher) throws Exception {
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < raft.size(); i++) {
            voters.append(i == 0 ? "" : ",").append(i + 1).append('@').append(raft.get(i));
        }
        BrokerProcessCluster cluster = new BrokerProcessCluster();
        try {
            for (int i = 0; i < kafka.size(); i++) {
                int node = i + 1;
                Map<String, String> settings = new HashMap<>();
                settings.put("node.id", Integer.toString(node));
                settings.put("listeners", kafka.get(i));
                settings.put("raft.listener", raft.get(i));
                settings.put("raft.voters", voters.toString());
                settings.put("log.dirs", dir.resolve("broker-" + node).toString());
                settings.putAll(extra);
                BrokerProcess broker = new BrokerProcess(launcher.apply(node), settings,
                        dir.resolve("broker-" + node + ".log"));
                cluster.brokers.add(broker);
                cluster.kafkaAddresses.add(kafka.get(i));
                broker.launch();
            }
            for (BrokerProcess broker : cluster.brokers) {
                broker.awaitStarted();
            }
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Every broker's Kafka listener, for bootstrap.servers. */
    String bootstrap() {
        return String.join(",", kafkaAddresses);
    }

    /** The broker with node id {@code index + 1}. */
    BrokerProcess broker(int index) {
        return brokers.get(index);
    }

    int size() {
        return brokers.size();
    }

    @Override
    public void close() throws InterruptedException {
        for (BrokerProcess broker : brokers) {
            broker.close();
        }
    }
}
