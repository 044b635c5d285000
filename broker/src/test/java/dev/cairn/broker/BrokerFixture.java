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
    /** Below Linux's default ephemeral range (32768-60999), where port-0 binds land. */
    private static final int FIXED_PORT_FIRST = 20_000;
    private static final int FIXED_PORT_COUNT = 12_000;
    private static int nextFixedPort = (int) ((ProcessHandle.current().pid() * 97) % FIXED_PORT_COUNT);

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
        return new BrokerFixture(Broker.start(BrokerConfig.fromMap(ItRaftEngine.withEngine(settings))));
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.kafkaPort();
    }

    public Broker broker() {
        return broker;
    }

    /**
     * A loopback port for a listener whose address must be known before it starts (Raft voters, a cluster's Kafka
     * ports). Port 0 cannot serve there, and a port the kernel handed out for port 0 and that was closed again may be
     * handed to the next binder (two brokers of one cluster once got the same one). So ports come from below the
     * kernel's ephemeral range, which port-0 binds never use, each handed out once per JVM, starting at an offset
     * from the process id so that concurrent test JVMs start apart, and each checked free by binding it.
     */
    public static synchronized int freePort() throws IOException {
        for (int attempt = 0; attempt < FIXED_PORT_COUNT; attempt++) {
            int port = FIXED_PORT_FIRST + nextFixedPort;
            nextFixedPort = (nextFixedPort + 1) % FIXED_PORT_COUNT;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (java.net.BindException inUse) {
                // Taken by another process: try the next one.
            }
        }
        throw new IOException("no free loopback port in [" + FIXED_PORT_FIRST + ", "
                + (FIXED_PORT_FIRST + FIXED_PORT_COUNT) + ")");
    }


    @Override
    public void close() throws IOException {
        broker.close();
    }
}
