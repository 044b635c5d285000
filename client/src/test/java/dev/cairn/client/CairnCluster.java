package dev.cairn.client;

import dev.cairn.broker.Broker;
import dev.cairn.broker.BrokerFixture;
import dev.cairn.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Three in-process Cairn brokers on free loopback ports, each a metadata voter; replication factor 3. */
final class CairnCluster implements BrokerUnderTest {
    private static final int BROKERS = 3;
    private static final long START_TIMEOUT_S = 120;
    private final List<Broker> brokers;

    private CairnCluster(List<Broker> brokers) {
        this.brokers = brokers;
    }

    static CairnCluster start(Path dir, int partitions) throws Exception {
        int[] raftPorts = new int[BROKERS];
        List<String> voters = new ArrayList<>();
        for (int i = 0; i < BROKERS; i++) {
            raftPorts[i] = BrokerFixture.freePort();
            voters.add((i + 1) + "@127.0.0.1:" + raftPorts[i]);
        }
        List<CompletableFuture<Broker>> starting = new ArrayList<>();
        for (int i = 0; i < BROKERS; i++) {
            Map<String, String> settings = new HashMap<>();
            settings.put("node.id", Integer.toString(i + 1));
            settings.put("listeners", "127.0.0.1:0");
            settings.put("raft.listener", "127.0.0.1:" + raftPorts[i]);
            settings.put("raft.voters", String.join(",", voters));
            settings.put("log.dirs", dir.resolve("broker-" + (i + 1)).toString());
            settings.put("num.partitions", Integer.toString(partitions));
            settings.put("default.replication.factor", Integer.toString(BROKERS));
            BrokerConfig config = BrokerConfig.fromMap(settings);
            // A broker's start-up waits for a metadata majority, so all three start together.
            starting.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return Broker.start(config);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        List<Broker> started = new ArrayList<>();
        for (CompletableFuture<Broker> broker : starting) {
            started.add(broker.get(START_TIMEOUT_S, TimeUnit.SECONDS));
        }
        return new CairnCluster(started);
    }

    @Override
    public String bootstrap() {
        List<String> addresses = new ArrayList<>();
        brokers.forEach(broker -> addresses.add("127.0.0.1:" + broker.kafkaPort()));
        return String.join(",", addresses);
    }

    @Override
    public void close() throws Exception {
        for (Broker broker : brokers) {
            broker.close();
        }
    }
}
