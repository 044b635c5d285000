package dev.cairn.broker;

import dev.cairn.broker.config.BrokerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Starts an in-process single-node broker on free loopback ports in a test's temporary directory. */
public final class BrokerFixture implements AutoCloseable {
    private final Broker broker;

    private BrokerFixture(Broker broker) {
        this.broker = broker;
    }

    public static BrokerFixture start(Path dataDir, Map<String, String> overrides) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "127.0.0.1:0");
        settings.put("raft.listener", "127.0.0.1:" + freePort());
        settings.put("log.dirs", dataDir.toString());
        settings.putAll(overrides);
        return new BrokerFixture(Broker.start(BrokerConfig.fromMap(settings)));
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.kafkaPort();
    }

    public Broker broker() {
        return broker;
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        broker.close();
    }
}
