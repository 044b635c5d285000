package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.api.ApiDispatcher;
import dev.cairn.broker.api.ApiVersionsHandler;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.broker.api.SaslAuthenticateHandler;
import dev.cairn.broker.api.SaslHandshakeHandler;
import dev.cairn.broker.api.SaslMechanisms;
import dev.cairn.broker.cluster.ScramCredentials;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.ResponseFrame;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.SaslHandshakeRequest;
import dev.cairn.protocol.message.SaslHandshakeResponse;
import dev.cairn.protocol.schema.Struct;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A SASL listener before login: ApiVersions and SaslHandshake are answered; any other request, a frame larger than
 * the pre-authentication bound, or a request after a refused mechanism closes that connection only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslListenerTest {
    private static final int SOCKET_TIMEOUT_MS = 10_000;
    private KafkaServer server;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws InterruptedException {
        Map<ApiKey, RequestHandler> handlers = new EnumMap<>(ApiKey.class);
        handlers.put(ApiKey.API_VERSIONS, new ApiVersionsHandler(EnumSet.allOf(ApiKey.class)));
        handlers.put(ApiKey.SASL_HANDSHAKE, new SaslHandshakeHandler(new SaslMechanisms(List.of("SCRAM-SHA-512"),
                Map.of(), () -> ScramCredentials.EMPTY)));
        handlers.put(ApiKey.SASL_AUTHENTICATE, new SaslAuthenticateHandler());
        handlers.put(ApiKey.METADATA, (context, request) -> CompletableFuture.failedFuture(
                new AssertionError("Metadata must not reach a handler before login")));
        server = KafkaServer.start("127.0.0.1", 0, new ApiDispatcher(handlers), 100 * 1024 * 1024, 100, 2, -1,
                new ListenerSecurity(null, true));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        server.close();
    }

    @Test
    void onlyApiVersionsAndSaslAreServedBeforeLogin() throws IOException {
        Socket healthy = connect();
        assertEquals(ErrorCode.NONE.code(), handshake(healthy, "SCRAM-SHA-512", 1));

        Socket metadataFirst = connect();
        send(metadataFirst, ApiKey.METADATA, (short) 12, new Struct(MetadataRequest.SCHEMA)
                .set(MetadataRequest.TOPICS, null));
        assertTrue(closedByServer(metadataFirst), "Metadata before login closes the connection");

        Socket oversized = connect();
        oversized.getOutputStream().write(ByteBuffer.allocate(4).putInt(Limits.UNAUTHENTICATED_FRAME_BYTES_MAX + 1)
                .array());
        assertTrue(closedByServer(oversized), "a frame over the pre-login bound closes the connection");

        Socket unknownMechanism = connect();
        assertEquals(ErrorCode.UNSUPPORTED_SASL_MECHANISM.code(), handshake(unknownMechanism, "GSSAPI", 2));
        send(unknownMechanism, ApiKey.API_VERSIONS, (short) 3, apiVersionsBody());
        assertTrue(closedByServer(unknownMechanism), "after a refused mechanism the connection is closed");

        Socket apiVersionsFirst = connect();
        send(apiVersionsFirst, ApiKey.API_VERSIONS, (short) 3, apiVersionsBody());
        assertEquals(7, read(apiVersionsFirst, ApiKey.API_VERSIONS, (short) 3).correlationId());
        // The connection that chose a mechanism may now send only SaslAuthenticate.
        send(healthy, ApiKey.API_VERSIONS, (short) 3, apiVersionsBody());
        assertTrue(closedByServer(healthy), "anything but SaslAuthenticate after the handshake closes it");
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        sockets.add(socket);
        return socket;
    }

    private static Struct apiVersionsBody() {
        return new Struct(ApiVersionsRequest.SCHEMA).set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, "test")
                .set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION, "1");
    }

    private static short handshake(Socket socket, String mechanism, int correlationId) throws IOException {
        ByteBuffer frame = ProtocolCodec.encodeRequest(new RequestHeader(ApiKey.SASL_HANDSHAKE.id(), (short) 1,
                correlationId, "test"), new Struct(SaslHandshakeRequest.SCHEMA)
                .set(SaslHandshakeRequest.MECHANISM, mechanism));
        write(socket, frame);
        return read(socket, ApiKey.SASL_HANDSHAKE, (short) 1).body().get(SaslHandshakeResponse.ERROR_CODE);
    }

    private static void send(Socket socket, ApiKey api, short version, Struct body) throws IOException {
        write(socket, ProtocolCodec.encodeRequest(new RequestHeader(api.id(), version, 7, "test"), body));
    }

    private static void write(Socket socket, ByteBuffer frame) throws IOException {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        socket.getOutputStream().write(bytes);
    }

    private static ResponseFrame read(Socket socket, ApiKey api, short version) throws IOException {
        DataInputStream data = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[data.readInt()];
        data.readFully(frame);
        return ProtocolCodec.decodeResponse(ByteBuffer.wrap(frame), api, version);
    }

    private static boolean closedByServer(Socket socket) {
        try {
            return socket.getInputStream().read() == -1;
        } catch (IOException e) {
            return true;
        }
    }
}
