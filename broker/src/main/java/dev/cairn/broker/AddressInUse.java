package dev.cairn.broker;

import dev.cairn.broker.config.ConfigException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Turns a listener's "address already in use" into a one-line error naming the configuration key and address,
 * whichever library met it (Netty's native epoll error, the JDK's BindException). It used to end the broker with a
 * 17-frame Netty trace naming neither, or, for the Raft port, with Ratis exiting the process.
 */
final class AddressInUse {
    private static final String IN_USE_TEXT = "Address already in use";

    private AddressInUse() {
    }

    /** Fails with a {@link ConfigException} when {@code host:port} cannot be bound now (port 0 always can). */
    static void check(String key, String host, int port) {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw inUse(key, host + ":" + port, e);
        }
    }

    /**
     * A {@link ConfigException} naming {@code key=address} when {@code failure} is an address in use; any other
     * failure is rethrown as it was.
     */
    static RuntimeException named(Exception failure, String key, String address)
            throws IOException, InterruptedException {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.BindException
                    || (cause.getMessage() != null && cause.getMessage().contains(IN_USE_TEXT))) {
                return inUse(key, address, cause);
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof InterruptedException interrupted) {
            throw interrupted;
        }
        if (failure instanceof RuntimeException unchecked) {
            return unchecked;
        }
        return new IllegalStateException(failure);
    }

    private static ConfigException inUse(String key, String address, Throwable cause) {
        return new ConfigException(key + "=" + address + ": cannot listen there (" + cause.getMessage()
                + "); is another broker or process using the port?");
    }
}
