package dev.cairn.broker;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.NioFileIo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Several brokers in this JVM on free loopback ports, one data directory each under a test's temporary
 * directory; a broker can be stopped and restarted with the same ports and data (node ids are 1..n).
 */
public final class InProcessCluster implements AutoCloseable {
    /** How long starting the brokers (which wait for a metadata majority) may take. */
    public static final long START_TIMEOUT_SECONDS = 120;

    private final List<BrokerConfig> configs;
    /** Each broker's file system, by node id. */
    private final IntFunction<FileIo> fileIo;
    private final List<Broker> brokers = new ArrayList<>();
    /** raft.voters of the brokers started together. */
    private final String voters;

    private InProcessCluster(List<BrokerConfig> configs, String voters, IntFunction<FileIo> fileIo) {
        this.configs = new ArrayList<>(configs);
        this.voters = voters;
        this.fileIo = fileIo;
        configs.forEach(config -> brokers.add(null));
    }

    /** Starts {@code size} brokers together, each with {@code settings} on top of its own ports and directory. */
    public static InProcessCluster start(int size, Path dir, Map<String, String> settings) throws Exception {
        return start(size, dir, settings, nodeId -> new NioFileIo());
    }

    /** As {@link #start(int, Path, Map)}, each broker on the file system {@code fileIo} gives for its node id. */
    static InProcessCluster start(int size, Path dir, Map<String, String> settings, IntFunction<FileIo> fileIo)
            throws Exception {
        List<Integer> raftPorts = new ArrayList<>();
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < size; i++) {
            raftPorts.add(BrokerFixture.freePort());
            voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(raftPorts.get(i));
        }
        List<BrokerConfig> configs = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Map<String, String> config = new HashMap<>();
            config.put("node.id", Integer.toString(i + 1));
            config.put("listeners", "127.0.0.1:" + BrokerFixture.freePort());
            config.put("raft.listener", "127.0.0.1:" + raftPorts.get(i));
            config.put("raft.voters", voters.toString());
            config.put("log.dirs", dir.resolve("broker-" + (i + 1)).toString());
            config.putAll(settings);
            configs.add(BrokerConfig.fromMap(ItRaftEngine.withEngine(config)));
        }
        InProcessCluster cluster = new InProcessCluster(configs, voters.toString(), fileIo);
        List<CompletableFuture<Broker>> starting = new ArrayList<>();
        for (BrokerConfig config : configs) {
            starting.add(CompletableFuture.supplyAsync(() -> cluster.startBroker(config)));
        }
        try {
            for (int i = 0; i < size; i++) {
                cluster.brokers.set(i, starting.get(i).get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private Broker startBroker(BrokerConfig config) {
        try {
            return Broker.start(config, fileIo.apply(config.nodeId()));
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("broker " + config.nodeId() + " did not start", e);
        }
    }

    /** The running broker with this node id; fails when it is stopped. */
    public Broker broker(int nodeId) {
        Broker broker = brokers.get(nodeId - 1);
        if (broker == null) {
            throw new IllegalStateException("broker " + nodeId + " is stopped");
        }
        return broker;
    }

    public BrokerConfig config(int nodeId) {
        return configs.get(nodeId - 1);
    }

    public int size() {
        return configs.size();
    }

    /** Every broker's Kafka address, running or not (clients skip the stopped ones). */
    public String bootstrap() {
        List<String> addresses = new ArrayList<>();
        for (BrokerConfig config : configs) {
            addresses.add(config.listener().toString());
        }
        return String.join(",", addresses);
    }

    public void stop(int nodeId) throws IOException {
        Broker broker = brokers.get(nodeId - 1);
        brokers.set(nodeId - 1, null);
        if (broker != null) {
            broker.close();
        }
    }

    /** Starts a stopped broker again on its ports and data directory. */
    public Broker restart(int nodeId) {
        if (brokers.get(nodeId - 1) != null) {
            throw new IllegalStateException("broker " + nodeId + " is running");
        }
        brokers.set(nodeId - 1, startBroker(configs.get(nodeId - 1)));
        return brokers.get(nodeId - 1);
    }

    /**
     * Starts one more broker, node id {@code size() + 1}, that is not in the others' raft.voters: it joins the
     * running cluster (README, "Adding a broker").
     */
    public Broker addBroker(Path dir, Map<String, String> settings) throws IOException {
        int nodeId = configs.size() + 1;
        Map<String, String> config = new HashMap<>();
        config.put("node.id", Integer.toString(nodeId));
        config.put("listeners", "127.0.0.1:" + BrokerFixture.freePort());
        config.put("raft.listener", "127.0.0.1:" + BrokerFixture.freePort());
        config.put("raft.voters", voters);
        config.put("log.dirs", dir.resolve("broker-" + nodeId).toString());
        config.putAll(settings);
        configs.add(BrokerConfig.fromMap(ItRaftEngine.withEngine(config)));
        brokers.add(null);
        return restart(nodeId);
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (int i = 0; i < brokers.size(); i++) {
            try {
                stop(i + 1);
            } catch (IOException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
