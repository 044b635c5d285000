package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnException;
import dev.cairn.client.CairnNetworkException;
import dev.cairn.client.CairnTimeoutException;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.Framing;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.ResponseFrame;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One TCP connection to one broker, with Kafka's pipelining: requests are written in order by the calling thread
 * and responses, which the broker sends in request order, are read by this connection's own reader thread and
 * matched against the oldest pending request (a mismatched correlation id closes the connection, as in
 * kafka-clients' {@code NetworkClient}). acks=0 produce requests get no response and are never pending.
 *
 * <p>A blocking {@link SocketChannel} and one reader thread per broker keep the I/O simple; a client talks to few
 * brokers, so the thread count stays small and fixed by the cluster size. On any I/O error every pending request
 * fails with {@link CairnNetworkException} and the connection is unusable; the owner opens a new one.
 */
public final class BrokerConnection implements AutoCloseable {
    /** The largest response frame accepted; a bigger size prefix means a broken stream. */
    public static final int RESPONSE_BYTES_MAX = 256 * 1024 * 1024;
    /**
     * Requests awaiting a response on one connection. Callers bound themselves far below this (the producer by
     * max.in.flight.requests.per.connection, the consumer by one fetch per broker); it guards against a caller bug
     * turning into unbounded memory.
     */
    public static final int PENDING_REQUESTS_MAX = 1_024;
    private static final String SOFTWARE_NAME = "cairn-java";
    private static final String SOFTWARE_VERSION = "0.1.0";

    private final String description;
    private final SocketChannel channel;
    private final String clientId;
    private final Object writeLock = new Object();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Thread reader;
    private final Map<ApiKey, Short> versions = new HashMap<>();
    private volatile CairnException failure;
    private int nextCorrelationId;

    private record Pending(int correlationId, ApiKey apiKey, short version, CompletableFuture<Struct> future) {
    }

    private BrokerConnection(String description, SocketChannel channel, String clientId) {
        this.description = description;
        this.channel = channel;
        this.clientId = clientId;
        this.reader = new Thread(this::readLoop, "cairn-io-" + description);
        this.reader.setDaemon(true);
    }

    /**
     * Connects, then negotiates API versions (ApiVersions v3, falling back to the broker's max on
     * UNSUPPORTED_VERSION) before returning; the whole handshake is bounded by {@code timeoutMs}.
     */
    public static BrokerConnection open(String host, int port, String clientId, long timeoutMs) {
        SocketChannel channel = null;
        String description = host + ":" + port;
        try {
            channel = SocketChannel.open();
            channel.socket().setTcpNoDelay(true);
            channel.socket().connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            BrokerConnection connection = new BrokerConnection(description, channel, clientId);
            connection.reader.start();
            connection.negotiateVersions(timeoutMs);
            return connection;
        } catch (IOException failed) {
            closeQuietly(channel);
            throw new CairnNetworkException("cannot connect to " + description + ": " + failed.getMessage(), failed);
        }
    }

    private void negotiateVersions(long timeoutMs) {
        short version = ApiKey.API_VERSIONS.maxVersion();
        Struct request = new Struct(ApiVersionsRequest.SCHEMA)
                .set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, SOFTWARE_NAME)
                .set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION, SOFTWARE_VERSION);
        Struct response = await(send(ApiKey.API_VERSIONS, version, request, true), timeoutMs, "ApiVersions");
        ErrorCode error = ErrorCode.forCode(response.get(ApiVersionsResponse.ERROR_CODE));
        if (error != ErrorCode.NONE) {
            close();
            throw new CairnApiException(error, "ApiVersions from " + description);
        }
        for (Struct entry : response.get(ApiVersionsResponse.API_KEYS)) {
            ApiKey apiKey = ApiKey.forId(entry.get(ApiVersionsResponse.ApiVersion.API_KEY));
            if (apiKey == null) {
                continue;
            }
            short brokerMax = entry.get(ApiVersionsResponse.ApiVersion.MAX_VERSION);
            short brokerMin = entry.get(ApiVersionsResponse.ApiVersion.MIN_VERSION);
            short chosen = (short) Math.min(brokerMax, apiKey.maxVersion());
            if (chosen >= Math.max(brokerMin, apiKey.minVersion())) {
                versions.put(apiKey, chosen);
            }
        }
    }

    /** The version to use for an API, or -1 when this broker and this client share none. */
    public short version(ApiKey apiKey) {
        return versions.getOrDefault(apiKey, (short) -1);
    }

    public boolean isUsable() {
        return failure == null;
    }

    /**
     * Sends a request in the negotiated version. The future completes with the response body, or exceptionally
     * with {@link CairnNetworkException} if the connection fails first. Without {@code expectResponse} (acks=0)
     * the future completes with null once the bytes are written.
     */
    public CompletableFuture<Struct> send(ApiKey apiKey, Struct body, boolean expectResponse) {
        short version = version(apiKey);
        if (version < 0) {
            return CompletableFuture.failedFuture(new CairnApiException(ErrorCode.UNSUPPORTED_VERSION,
                    apiKey.apiName() + " on " + description));
        }
        return send(apiKey, version, body, expectResponse);
    }

    private CompletableFuture<Struct> send(ApiKey apiKey, short version, Struct body, boolean expectResponse) {
        CompletableFuture<Struct> future = new CompletableFuture<>();
        synchronized (writeLock) {
            if (failure != null) {
                future.completeExceptionally(failure);
                return future;
            }
            int correlationId = nextCorrelationId++;
            ByteBuffer frame = ProtocolCodec.encodeRequest(new RequestHeader(apiKey.id(), version, correlationId,
                    clientId), body);
            if (expectResponse) {
                synchronized (pending) {
                    if (pending.size() >= PENDING_REQUESTS_MAX) {
                        future.completeExceptionally(new CairnException(PENDING_REQUESTS_MAX
                                + " requests already await responses on " + description, true));
                        return future;
                    }
                    pending.addLast(new Pending(correlationId, apiKey, version, future));
                }
            }
            try {
                while (frame.hasRemaining()) {
                    channel.write(frame);
                }
            } catch (IOException failed) {
                fail(new CairnNetworkException("write to " + description + " failed: " + failed.getMessage(),
                        failed));
                future.completeExceptionally(failure);
                return future;
            }
            if (!expectResponse) {
                future.complete(null);
            }
        }
        return future;
    }

    private void readLoop() {
        ByteBuffer sizePrefix = ByteBuffer.allocate(Framing.SIZE_PREFIX_BYTES);
        try {
            while (failure == null) {
                sizePrefix.clear();
                readFully(sizePrefix);
                int frameBytes = sizePrefix.getInt(0);
                if (frameBytes < 0 || frameBytes > RESPONSE_BYTES_MAX) {
                    throw new IOException("response size " + frameBytes + " outside [0, " + RESPONSE_BYTES_MAX + "]");
                }
                ByteBuffer frame = ByteBuffer.allocate(frameBytes);
                readFully(frame);
                frame.flip();
                onResponse(frame);
            }
        } catch (IOException | RuntimeException failed) {
            // The reader owns the stream: any failure, including a malformed frame, ends the connection and fails
            // every pending request, because later responses can no longer be matched to requests.
            fail(new CairnNetworkException("connection to " + description + " failed: " + failed.getMessage(),
                    failed));
        }
    }

    private void onResponse(ByteBuffer frame) throws IOException {
        Pending oldest;
        synchronized (pending) {
            oldest = pending.pollFirst();
        }
        if (oldest == null) {
            throw new IOException("response with no request pending");
        }
        ResponseFrame response = ProtocolCodec.decodeResponse(frame, oldest.apiKey, oldest.version);
        if (response.correlationId() != oldest.correlationId) {
            throw new IOException("correlation id " + response.correlationId() + " but expected "
                    + oldest.correlationId);
        }
        oldest.future.complete(response.body());
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("closed by the broker");
            }
        }
    }

    private void fail(CairnException cause) {
        synchronized (pending) {
            if (failure == null) {
                failure = cause;
            }
        }
        closeQuietly(channel);
        while (true) {
            Pending next;
            synchronized (pending) {
                next = pending.pollFirst();
            }
            if (next == null) {
                return;
            }
            next.future.completeExceptionally(failure);
        }
    }

    /** Waits for a response, turning every failure into a {@link CairnException}. */
    public static Struct await(CompletableFuture<Struct> future, long timeoutMs, String what) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            throw new CairnTimeoutException(what + " got no response within " + timeoutMs + " ms");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException(what + " interrupted", true, interrupted);
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof CairnException) {
                throw (CairnException) failed.getCause();
            }
            throw new CairnException(what + " failed: " + failed.getCause(), false, failed.getCause());
        }
    }

    /** Closes the socket; pending requests fail with {@link CairnNetworkException}. */
    @Override
    public void close() {
        fail(new CairnNetworkException("connection to " + description + " closed by the client", null));
    }

    @Override
    public String toString() {
        return "BrokerConnection[" + description + "]";
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing is best effort: the socket is abandoned either way and its pending requests fail.
        }
    }
}
