package dev.cairn.broker;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy that understands Kafka framing just enough to lose responses: it forwards requests to
 * the broker, and for the first {@code dropCount} Produce responses it swallows the response and closes both
 * connections, so the broker has appended but the client never hears about it (a lost acknowledgement).
 */
final class ResponseDroppingProxy implements AutoCloseable {
    private static final short PRODUCE_API_KEY = 0;
    private static final int FRAME_BYTES_MAX = 64 * 1024 * 1024;

    private final ServerSocket server;
    private final int targetPort;
    private final AtomicInteger dropsLeft;
    private final AtomicInteger dropped = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;

    ResponseDroppingProxy(int targetPort, int dropCount, int listenPort) throws IOException {
        this.server = new ServerSocket(listenPort, 50, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.dropsLeft = new AtomicInteger(dropCount);
        this.acceptor = new Thread(this::acceptLoop, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    int dropped() {
        return dropped.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket broker = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(broker);
                }
                ArrayDeque<Short> apiKeys = new ArrayDeque<>();
                start(() -> pump(client, broker, apiKeys, true));
                start(() -> pump(broker, client, apiKeys, false));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void start(Runnable task) {
        Thread thread = new Thread(task, "proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Copies frames; requests record their api key so the matching (in-order) response can be recognised. */
    private void pump(Socket from, Socket to, ArrayDeque<Short> apiKeys, boolean requests) {
        try (InputStream rawIn = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            DataInputStream in = new DataInputStream(rawIn);
            while (true) {
                int size = in.readInt();
                if (size < 0 || size > FRAME_BYTES_MAX) {
                    throw new IOException("bad frame size " + size);
                }
                byte[] frame = new byte[size];
                in.readFully(frame);
                boolean drop = false;
                if (requests) {
                    short apiKey = ByteBuffer.wrap(frame).getShort(0);
                    short acks = apiKey == PRODUCE_API_KEY ? produceAcks(frame) : 1;
                    if (acks != 0) {
                        synchronized (apiKeys) {
                            apiKeys.addLast(apiKey);
                        }
                    }
                } else {
                    short apiKey;
                    synchronized (apiKeys) {
                        apiKey = apiKeys.isEmpty() ? -1 : apiKeys.removeFirst();
                    }
                    drop = apiKey == PRODUCE_API_KEY && dropsLeft.getAndDecrement() > 0;
                }
                if (drop) {
                    dropped.incrementAndGet();
                    from.close();
                    to.close();
                    return;
                }
                out.write(ByteBuffer.allocate(4).putInt(size).array());
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Produce v3+: header (api key, version, correlation id, client id), transactional id, then acks. */
    private static short produceAcks(byte[] frame) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        buffer.position(8);
        short clientIdLength = buffer.getShort();
        buffer.position(buffer.position() + Math.max(0, clientIdLength));
        short transactionalIdLength = buffer.getShort();
        buffer.position(buffer.position() + Math.max(0, transactionalIdLength));
        return buffer.getShort();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed by the other pump.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            for (Socket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }
}
