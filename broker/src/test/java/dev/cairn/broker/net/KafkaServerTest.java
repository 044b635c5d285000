package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.api.ApiDispatcher;
import dev.cairn.broker.api.ApiVersionsHandler;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.ResponseFrame;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kafka listener under hostile input (issue acceptance 5): bad frames close only their own connection,
 * and responses leave in request order whatever order handlers finish in.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaServerTest {
    private static final int REQUEST_BYTES_MAX = 1024 * 1024;
    private static final int SOCKET_TIMEOUT_MS = 10_000;
    private KafkaServer server;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws InterruptedException {
        server = KafkaServer.start("127.0.0.1", 0, new ApiDispatcher(Map.of(ApiKey.API_VERSIONS,
                new ApiVersionsHandler(EnumSet.allOf(ApiKey.class)))), REQUEST_BYTES_MAX, 5000, 2);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        server.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        sockets.add(socket);
        return socket;
    }

    private static byte[] apiVersionsRequest(short version, int correlationId) {
        Struct body = new Struct(ApiVersionsRequest.SCHEMA);
        if (version >= 3) {
            body.set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, "test").set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION,
                    "1");
        }
        ByteBuffer frame = ProtocolCodec.encodeRequest(new RequestHeader(ApiKey.API_VERSIONS.id(), version,
                correlationId, "test-client"), body);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        return bytes;
    }

    private static ResponseFrame readResponse(InputStream in, short version) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int size = data.readInt();
        byte[] frame = new byte[size];
        data.readFully(frame);
        return ProtocolCodec.decodeResponse(ByteBuffer.wrap(frame), ApiKey.API_VERSIONS, version);
    }

    private void assertServes(Socket socket) throws IOException {
        socket.getOutputStream().write(apiVersionsRequest((short) 3, 77));
        ResponseFrame response = readResponse(socket.getInputStream(), (short) 3);
        assertEquals(77, response.correlationId());
        assertEquals(ErrorCode.NONE.code(), response.body().get(ApiVersionsResponse.ERROR_CODE));
    }

    private static boolean closedByServer(Socket socket) {
        try {
            return socket.getInputStream().read() == -1;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Issue 16 item 10: the broker closes its Raft side after this listener, so a handler that blocks an event loop
     * must not hold the broker's close: close returns within {@link KafkaServer#CLOSE_MS_MAX} and leaves that loop.
     */
    @Test
    void closeIsBoundedWhenAHandlerBlocksAnEventLoop() throws Exception {
        java.util.concurrent.CountDownLatch blocking = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        KafkaServer blocked = KafkaServer.start("127.0.0.1", 0, (context, request) -> {
            blocking.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new CompletableFuture<>();
        }, REQUEST_BYTES_MAX, 5000, 2);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), blocked.port())) {
            socket.getOutputStream().write(apiVersionsRequest((short) 3, 1));
            assertTrue(blocking.await(SOCKET_TIMEOUT_MS, TimeUnit.MILLISECONDS), "the handler runs");
            long startNanos = System.nanoTime();
            blocked.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            assertTrue(closeMs <= KafkaServer.CLOSE_MS_MAX + 1_000, "close took " + closeMs + " ms");
        } finally {
            release.countDown();
        }
    }

    @Test
    void apiVersionsIsAnsweredForEverySupportedVersionAndUnknownOnesGetTheV0Fallback() throws IOException {
        Socket socket = connect();
        for (short version = 0; version <= 3; version++) {
            socket.getOutputStream().write(apiVersionsRequest(version, version));
            ResponseFrame response = readResponse(socket.getInputStream(), version);
            assertEquals(version, response.correlationId());
            assertEquals(ApiKey.values().length, response.body().get(ApiVersionsResponse.API_KEYS).size());
        }
        // ApiVersions v5 as kafka-clients 4.4 sends it first: a v0-format UNSUPPORTED_VERSION body.
        byte[] v3 = apiVersionsRequest((short) 3, 99);
        ByteBuffer.wrap(v3).putShort(6, (short) 5);
        socket.getOutputStream().write(v3);
        ResponseFrame fallback = readResponse(socket.getInputStream(), (short) 0);
        assertEquals(99, fallback.correlationId());
        assertEquals(ErrorCode.UNSUPPORTED_VERSION.code(), fallback.body().get(ApiVersionsResponse.ERROR_CODE));
    }

    @Test
    void hostileFramesCloseOnlyTheirOwnConnection() throws IOException {
        Socket healthy = connect();
        assertServes(healthy);
        List<byte[]> attacks = List.of(
                ByteBuffer.allocate(4).putInt(-5).array(),                         // negative length
                ByteBuffer.allocate(4).putInt(REQUEST_BYTES_MAX + 1).array(),      // oversized length
                ByteBuffer.allocate(12).putInt(8).putShort((short) 999).putShort((short) 0).putInt(1).array(),
                ByteBuffer.allocate(12).putInt(8).putShort((short) 0).putShort((short) 99).putInt(1).array(),
                ByteBuffer.allocate(6).putInt(2).putShort((short) 18).array(),     // truncated header
                ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
        for (byte[] attack : attacks) {
            Socket socket = connect();
            socket.getOutputStream().write(attack);
            assertTrue(closedByServer(socket), "connection closed after a hostile frame");
        }
        SplittableRandom random = new SplittableRandom(42);
        byte[] valid = apiVersionsRequest((short) 3, 1);
        for (int i = 0; i < 200; i++) {
            byte[] mutated = valid.clone();
            for (int flips = 0; flips < 3; flips++) {
                int at = 4 + random.nextInt(mutated.length - 4);
                mutated[at] = (byte) random.nextInt(256);
            }
            Socket socket = connect();
            OutputStream out = socket.getOutputStream();
            out.write(mutated);
            socket.shutdownOutput();
            // Either answered (the mutation was harmless) or closed; never a hang, never a crash.
            while (socket.getInputStream().read() != -1) {
                continue;
            }
            socket.close();
        }
        assertServes(healthy);
        assertServes(connect());
    }

    @Test
    void thousandsOfIdleConnectionsDoNotStopService() throws IOException {
        for (int i = 0; i < 2000; i++) {
            connect();
        }
        assertServes(sockets.get(0));
        assertServes(sockets.get(1999));
    }

    @Test
    void pipelinedResponsesLeaveInRequestOrder() throws Exception {
        server.close();
        List<CompletableFuture<Struct>> pending = new ArrayList<>();
        RequestHandler slowFirst = (context, request) -> {
            CompletableFuture<Struct> future = new CompletableFuture<>();
            synchronized (pending) {
                pending.add(future);
                if (pending.size() == 3) {
                    for (int i = pending.size() - 1; i >= 0; i--) {
                        pending.get(i).complete(ApiKey.apiVersionsResponse(ErrorCode.NONE));
                    }
                }
            }
            return future;
        };
        server = KafkaServer.start("127.0.0.1", 0, new ApiDispatcher(Map.of(ApiKey.API_VERSIONS, slowFirst)),
                REQUEST_BYTES_MAX, 100, 1);
        Socket socket = connect();
        for (int id = 1; id <= 3; id++) {
            socket.getOutputStream().write(apiVersionsRequest((short) 3, id));
        }
        for (int id = 1; id <= 3; id++) {
            assertEquals(id, readResponse(socket.getInputStream(), (short) 3).correlationId());
        }
    }

    /**
     * Issue 17: queued.max.request.bytes. With a budget smaller than one request, a connection whose request is
     * unanswered reads nothing more, on that connection or another, until the answer is written; then both are
     * served, in order, and the budget is whole again.
     */
    @Test
    void aSpentRequestBytesBudgetStopsReadingUntilResponsesLeave() throws Exception {
        server.close();
        java.util.concurrent.BlockingQueue<CompletableFuture<Struct>> held =
                new java.util.concurrent.LinkedBlockingQueue<>();
        RequestHandler holding = (context, request) -> {
            CompletableFuture<Struct> future = new CompletableFuture<>();
            held.add(future);
            return future;
        };
        server = KafkaServer.start("127.0.0.1", 0, new ApiDispatcher(Map.of(ApiKey.API_VERSIONS, holding)),
                REQUEST_BYTES_MAX, 100, 1, 10);
        Socket first = connect();
        first.getOutputStream().write(apiVersionsRequest((short) 3, 1));
        CompletableFuture<Struct> answerFirst = held.poll(30, TimeUnit.SECONDS);
        assertTrue(answerFirst != null && server.queuedRequestBytes() > 10, "the first request spent the budget");
        Socket second = connect();
        second.getOutputStream().write(apiVersionsRequest((short) 3, 2));
        first.getOutputStream().write(apiVersionsRequest((short) 3, 3));
        // The second connection was reading when it connected: it may take its one frame beyond the budget.
        CompletableFuture<Struct> answerSecond = held.poll(2, TimeUnit.SECONDS);
        assertEquals(null, held.poll(1, TimeUnit.SECONDS), "nothing more is read while the budget is spent");
        answerFirst.complete(ApiKey.apiVersionsResponse(ErrorCode.NONE));
        assertEquals(1, readResponse(first.getInputStream(), (short) 3).correlationId());
        int handled = 1;
        if (answerSecond != null) {
            answerSecond.complete(ApiKey.apiVersionsResponse(ErrorCode.NONE));
            handled++;
        }
        while (handled < 3) {
            CompletableFuture<Struct> next = held.poll(30, TimeUnit.SECONDS);
            assertTrue(next != null, "reading resumed once answers left");
            next.complete(ApiKey.apiVersionsResponse(ErrorCode.NONE));
            handled++;
        }
        assertEquals(3, readResponse(first.getInputStream(), (short) 3).correlationId());
        assertEquals(2, readResponse(second.getInputStream(), (short) 3).correlationId());
        Await.until(() -> server.queuedRequestBytes() == 0, "the budget given back");
    }

    /** Polls a condition for up to 30 s. */
    private static final class Await {
        static void until(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!condition.getAsBoolean()) {
                assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }
}
