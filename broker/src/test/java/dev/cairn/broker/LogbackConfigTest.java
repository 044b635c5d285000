package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * The broker's shipped logging configuration keeps Ratis's per-group, per-retry noise out of the log (after a
 * broker death each survivor logged 120-270 lines a minute naming group UUIDs, and ERRORs for requests Cairn
 * retries); Cairn's own lines name brokers and topic-partitions instead.
 */
class LogbackConfigTest {
    @Test
    void ratisNoiseIsQuietAndCairnLogsAtInfo() throws Exception {
        URL config = Broker.class.getResource("/logback.xml");
        assertNotNull(config, "logback.xml ships in the broker jar");
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(config);
        assertEquals(Level.ERROR, context.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender")
                .getEffectiveLevel());
        assertEquals(Level.ERROR, context.getLogger("org.apache.ratis.grpc.server.GrpcServerProtocolService")
                .getEffectiveLevel());
        assertEquals(Level.OFF, context.getLogger("org.apache.ratis.client.impl.OrderedAsync").getEffectiveLevel());
        assertEquals(Level.WARN, context.getLogger("org.apache.ratis.server.impl.RaftServerImpl").getEffectiveLevel());
        assertEquals(Level.INFO, context.getLogger("dev.cairn.broker.raft.RatisCluster").getEffectiveLevel());

        // A request to a group still being added is dropped; other Ratis errors pass.
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
                new ch.qos.logback.core.read.ListAppender<>();
        seen.setContext(context);
        seen.start();
        ch.qos.logback.classic.Logger division = context.getLogger("org.apache.ratis.server.RaftServer$Division");
        division.addAppender(seen);
        division.error("2@group-1: Failed appendEntries", new IllegalStateException("wrapped",
                new ServerNotReadyException("2@group-1 is not in [STARTING, RUNNING]: current state is NEW")));
        division.error("2@group-1: Failed appendEntries {}", "HEARTBEAT", new ServerNotReadyException("NEW"));
        division.error("2@group-1: log failed", new java.io.IOException("disk full"));
        assertEquals(1, seen.list.size(), seen.list.toString());
        assertEquals("2@group-1: log failed", seen.list.get(0).getMessage());
        context.stop();
    }

    /** Stands for Ratis's exception, matched by its simple name. */
    private static final class ServerNotReadyException extends java.io.IOException {
        ServerNotReadyException(String message) {
            super(message);
        }
    }
}
