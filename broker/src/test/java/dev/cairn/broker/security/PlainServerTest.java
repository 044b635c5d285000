package dev.cairn.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import javax.security.sasl.SaslClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link PlainServer}, driven by the JDK PLAIN client Kafka's PlainLoginModule uses, and by hand. */
class PlainServerTest {

    private static final String INVALID = "Authentication failed during authentication due to invalid credentials "
            + "with SASL mechanism PLAIN";

    private final Map<String, String> users = JaasPlainUsers.parse(JaasPlainUsers.PLAIN_LOGIN_MODULE
            + " required user_admin=\"admin-secret\" user_alice=\"alice-secret\";");
    private final PlainServer server = new PlainServer(name -> Optional.ofNullable(users.get(name)));

    private byte[] clientToken(String authzid, String user, String password) throws Exception {
        SaslClient client = KafkaSaslClients.plain(authzid, user, password);
        assertTrue(client.hasInitialResponse());
        return client.evaluateChallenge(new byte[0]);
    }

    private SaslFailure fails(String token) {
        return assertThrows(SaslFailure.class, () -> server.evaluate(token.getBytes(UTF_8)));
    }

    @Test
    void theJdkClientAuthenticates() throws Exception {
        assertFalse(server.isComplete());
        assertThrows(IllegalStateException.class, server::authenticatedUser);
        assertArrayEquals(new byte[0], server.evaluate(clientToken(null, "alice", "alice-secret")));
        assertTrue(server.isComplete());
        assertEquals("alice", server.authenticatedUser());
        assertEquals("PLAIN", server.mechanismName());
    }

    @Test
    void anAuthzidEqualToTheUserIsAccepted() throws Exception {
        server.evaluate(clientToken("admin", "admin", "admin-secret"));
        assertEquals("admin", server.authenticatedUser());
    }

    @Test
    void wrongPasswordAndUnknownUserFailAlike() throws Exception {
        byte[] wrong = clientToken(null, "alice", "admin-secret");
        SaslFailure wrongPassword = assertThrows(SaslFailure.class, () -> server.evaluate(wrong));
        PlainServer other = new PlainServer(name -> Optional.ofNullable(users.get(name)));
        byte[] unknownToken = clientToken(null, "mallory", "alice-secret");
        SaslFailure unknown = assertThrows(SaslFailure.class, () -> other.evaluate(unknownToken));
        assertEquals(INVALID, wrongPassword.getMessage());
        assertEquals(INVALID, unknown.getMessage());
        assertTrue(wrongPassword.isInvalidCredentials());
        assertTrue(unknown.isInvalidCredentials());
        assertFalse(server.isComplete());
    }

    @Test
    void aPrefixOfThePasswordIsNotThePassword() {
        fails("\u0000alice\u0000alice-secre");
        PlainServer other = new PlainServer(name -> Optional.ofNullable(users.get(name)));
        assertThrows(SaslFailure.class, () -> other.evaluate("\u0000alice\u0000alice-secretX".getBytes(UTF_8)));
    }

    @Test
    void anAuthzidForAnotherUserIsRefused() throws Exception {
        byte[] token = clientToken("admin", "alice", "alice-secret");
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(token));
        assertEquals("Authentication failed: Client requested an authorization id that is different from username",
                failure.getMessage());
        assertFalse(failure.isInvalidCredentials());
    }

    @ParameterizedTest
    @ValueSource(strings = {"alicealice-secret", "alice\u0000alice-secret", "\u0000alice\u0000pw\u0000x",
        "\u0000\u0000alice-secret", "\u0000alice\u0000", ""})
    void malformedMessagesFail(String message) {
        SaslFailure failure = fails(message);
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason(), failure.getMessage());
        assertTrue(failure.getMessage().startsWith("Authentication failed: malformed PLAIN token: "));
        assertFalse(failure.getMessage().contains("alice-secret"));
    }

    @Test
    void invalidUtf8AndOversizedTokensFail() {
        SaslFailure utf8 = assertThrows(SaslFailure.class,
                () -> server.evaluate(new byte[] {0, 'a', 0, (byte) 0xc3, (byte) 0x28}));
        assertTrue(utf8.getMessage().contains("not valid UTF-8"), utf8.getMessage());
        PlainServer other = new PlainServer(name -> Optional.ofNullable(users.get(name)));
        String big = "\u0000alice\u0000" + "x".repeat(SaslMechanismServer.TOKEN_BYTES_MAX);
        SaslFailure oversized = assertThrows(SaslFailure.class, () -> other.evaluate(big.getBytes(UTF_8)));
        assertTrue(oversized.getMessage().contains("exceeds 8192 bytes"), oversized.getMessage());
        assertThrows(SaslFailure.class, () -> new PlainServer(name -> Optional.empty()).evaluate(null));
    }

    @Test
    void tokensAfterCompletionOrFailureFail() throws Exception {
        byte[] good = clientToken(null, "alice", "alice-secret");
        server.evaluate(good);
        SaslFailure after = assertThrows(SaslFailure.class, () -> server.evaluate(good));
        assertTrue(after.getMessage().contains("after authentication completed"), after.getMessage());
        assertEquals("alice", server.authenticatedUser());

        PlainServer failed = new PlainServer(name -> Optional.ofNullable(users.get(name)));
        assertThrows(SaslFailure.class, () -> failed.evaluate("\u0000alice\u0000nope".getBytes(UTF_8)));
        SaslFailure retry = assertThrows(SaslFailure.class, () -> failed.evaluate(good));
        assertTrue(retry.getMessage().contains("after authentication failed"), retry.getMessage());
        assertFalse(failed.isComplete());
    }
}
