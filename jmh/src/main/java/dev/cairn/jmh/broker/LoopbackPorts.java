package dev.cairn.jmh.broker;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Loopback ports for a benchmark's broker whose Raft listener must be known before it starts (its Kafka listener
 * binds port 0 and reports it). Taken below Linux's ephemeral range (32768-60999), where port-0 binds never land,
 * from an offset set by the process id, each handed out once and checked free by binding it.
 */
public final class LoopbackPorts {
    private static final int FIRST = 20_000;
    private static final int COUNT = 12_000;
    private static int next = (int) ((ProcessHandle.current().pid() * 97) % COUNT);

    private LoopbackPorts() {
    }

    /** A free loopback port below the ephemeral range. */
    public static synchronized int free() throws IOException {
        for (int attempt = 0; attempt < COUNT; attempt++) {
            int port = FIRST + next;
            next = (next + 1) % COUNT;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (BindException inUse) {
                // Taken by another process: try the next one.
            }
        }
        throw new IOException("no free loopback port in [" + FIRST + ", " + (FIRST + COUNT) + ")");
    }
}
