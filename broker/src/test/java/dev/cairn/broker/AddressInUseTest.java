package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.ConfigException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** A port in use is reported as one line naming the key and address, not a library's stack trace. */
class AddressInUseTest {
    @Test
    void aTakenPortIsNamedWithItsKey() throws IOException {
        try (ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> AddressInUse.check("raft.listener", "127.0.0.1", held.getLocalPort()));
            assertTrue(e.getMessage().startsWith("raft.listener=127.0.0.1:" + held.getLocalPort() + ": "),
                    e.getMessage());
        }
    }

    @Test
    void aBindFailureDeepInACauseChainIsNamedAndOtherFailuresPassThrough() throws Exception {
        Exception netty = new IllegalStateException("bind failed", new BindException("Address already in use"));
        assertTrue(AddressInUse.named(netty, "listeners", "127.0.0.1:9092").getMessage()
                .startsWith("listeners=127.0.0.1:9092: "));
        IOException disk = new IOException("disk full");
        assertSame(disk, assertThrows(IOException.class, () -> AddressInUse.named(disk, "listeners", "x")));
        IllegalArgumentException other = new IllegalArgumentException("other");
        assertSame(other, AddressInUse.named(other, "listeners", "x"));
    }
}
