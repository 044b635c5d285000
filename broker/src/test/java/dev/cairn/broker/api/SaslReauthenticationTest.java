package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.ScramCredentials;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.SaslAuthenticateRequest;
import dev.cairn.protocol.message.SaslAuthenticateResponse;
import dev.cairn.protocol.message.SaslHandshakeRequest;
import dev.cairn.protocol.message.SaslHandshakeResponse;
import dev.cairn.protocol.schema.Struct;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * connections.max.reauth.ms (KIP-368) through the SASL handlers, on a controlled clock: the login's lifetime is
 * reported, requests after it are refused, a re-authentication as the same user renews it, one as another user fails.
 */
class SaslReauthenticationTest {
    private static final long LIFETIME_MS = 1000;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final SaslHandshakeHandler handshake = new SaslHandshakeHandler(new SaslMechanisms(List.of("PLAIN"),
            Map.of("alice", "alice-secret", "bob", "bob-secret"), () -> ScramCredentials.EMPTY));
    private final SaslAuthenticateHandler authenticate = new SaslAuthenticateHandler(LIFETIME_MS, nanos::get);
    private final ConnectionSession session = ConnectionSession.saslRequired();
    private final RequestContext context = new RequestContext(1, "127.0.0.1:50000", session);

    private short handshake() {
        Struct response = ApiTestSupport.call(handshake, ApiTestSupport.request(ApiKey.SASL_HANDSHAKE, 1,
                new Struct(SaslHandshakeRequest.SCHEMA).set(SaslHandshakeRequest.MECHANISM, "PLAIN")), context);
        return response.get(SaslHandshakeResponse.ERROR_CODE);
    }

    private Struct login(String user, String password) {
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        return ApiTestSupport.call(authenticate, ApiTestSupport.request(ApiKey.SASL_AUTHENTICATE, 2,
                new Struct(SaslAuthenticateRequest.SCHEMA).set(SaslAuthenticateRequest.AUTH_BYTES, token)), context);
    }

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void aSessionEndsUnlessTheSameUserReauthenticates() {
        assertEquals(ErrorCode.NONE.code(), handshake());
        Struct first = login("alice", "alice-secret");
        assertEquals(ErrorCode.NONE.code(), first.get(SaslAuthenticateResponse.ERROR_CODE));
        assertEquals(LIFETIME_MS, first.get(SaslAuthenticateResponse.SESSION_LIFETIME_MS));
        assertTrue(session.permits(ApiKey.METADATA.id(), nanos.get()));

        advanceMs(LIFETIME_MS - 100);
        assertEquals(ErrorCode.NONE.code(), handshake(), "a logged-in connection may re-authenticate");
        assertFalse(session.permits(ApiKey.METADATA.id(), nanos.get()), "only SaslAuthenticate during re-auth");
        assertEquals(ErrorCode.NONE.code(), login("alice", "alice-secret").get(SaslAuthenticateResponse.ERROR_CODE));
        advanceMs(500);
        assertTrue(session.permits(ApiKey.METADATA.id(), nanos.get()), "the re-authentication renewed the session");

        advanceMs(LIFETIME_MS);
        assertFalse(session.permits(ApiKey.METADATA.id(), nanos.get()), "an ended session is refused");
        assertTrue(session.permits(ApiKey.SASL_HANDSHAKE.id(), nanos.get()), "but may still re-authenticate");
        assertEquals(ErrorCode.NONE.code(), handshake());
        Struct switched = login("bob", "bob-secret");
        assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED.code(), switched.get(SaslAuthenticateResponse.ERROR_CODE));
        assertEquals(ConnectionSession.Stage.FAILED, session.stage());
        assertEquals("User:alice", session.principal());
    }
}
