package dev.cairn.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ScramServer} on hand-written messages: the grammar's corners and the limits. */
class ScramServerTest {

    private static final ScramMechanism MECHANISM = ScramMechanism.SCRAM_SHA_256;
    private static final String PASSWORD = "alice-secret";

    private final Map<String, ScramCredential> store = Map.of("alice",
            ScramCredential.fromPassword(MECHANISM, PASSWORD, "salt".getBytes(UTF_8), 4096));
    private final ScramServer server = new ScramServer(MECHANISM, name -> Optional.ofNullable(store.get(name)),
            new SecureRandom());

    private SaslFailure fails(String token) {
        return assertThrows(SaslFailure.class, () -> server.evaluate(token.getBytes(UTF_8)));
    }

    private void failsMalformed(String token, String expected) {
        SaslFailure failure = fails(token);
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason(), failure.getMessage());
        assertTrue(failure.getMessage().contains(expected), failure.getMessage());
        assertThrows(SaslFailure.class, () -> server.evaluate(token.getBytes(UTF_8)), "the attempt is over");
    }

    private void authenticates(String gs2Header, String bare, String finalExtra) throws Exception {
        ManualScramClient client = new ManualScramClient(MECHANISM, PASSWORD);
        byte[] serverFirst = server.evaluate(client.first(gs2Header, bare));
        String text = new String(serverFirst, UTF_8);
        String clientNonce = bare.split(",")[1].substring(2);
        assertTrue(text.startsWith("r=" + clientNonce), text);
        String serverNonce = text.substring(2 + clientNonce.length(), text.indexOf(','));
        assertTrue(serverNonce.length() >= 32 && ScramClientFirst.isPrintable(serverNonce), serverNonce);
        client.verify(server.evaluate(client.finalMessage(serverFirst, finalExtra)));
        assertEquals("alice", server.authenticatedUser());
    }

    @Test
    void plainGs2HeaderAuthenticates() throws Exception {
        authenticates("n,,", "n=alice,r=abc", "");
    }

    /** librdkafka 2.x repeats its own nonce before the combined one in client-final-message; Kafka accepts it. */
    @Test
    void librdkafkasRepeatedClientNonceAuthenticates() throws Exception {
        ManualScramClient client = new ManualScramClient(MECHANISM, PASSWORD);
        byte[] serverFirst = server.evaluate(client.first("n,,", "n=alice,r=abc"));
        client.verify(server.evaluate(client.finalMessage(serverFirst, "", "abc")));
        assertEquals("alice", server.authenticatedUser());
    }

    /** Only the client's own nonce may be repeated in front; anything else is a nonce mismatch. */
    @Test
    void otherNoncePrefixesFail() throws Exception {
        ManualScramClient client = new ManualScramClient(MECHANISM, PASSWORD);
        byte[] serverFirst = server.evaluate(client.first("n,,", "n=alice,r=abc"));
        SaslFailure failure = assertThrows(SaslFailure.class,
                () -> server.evaluate(client.finalMessage(serverFirst, "", "xyz")));
        assertTrue(failure.getMessage().contains("nonce does not match"), failure.getMessage());
    }

    @Test
    void clientThatCouldBindButThinksWeCannotAuthenticates() throws Exception {
        authenticates("y,,", "n=alice,r=abc", "");
    }

    @Test
    void authzidEqualToTheUserAuthenticates() throws Exception {
        authenticates("n,a=alice,", "n=alice,r=abc", "");
    }

    @Test
    void extensionsInBothMessagesAreIgnored() throws Exception {
        authenticates("n,,", "n=alice,r=abc,foo=bar,tokenauth=false", ",x=y");
    }

    @Test
    void authzidForAnotherUserIsRefused() {
        SaslFailure failure = fails("n,a=bob,n=alice,r=abc");
        assertEquals(SaslFailure.Reason.UNSUPPORTED, failure.reason());
        assertFalse(failure.getMessage().contains("bob"));
    }

    @Test
    void channelBindingIsRefused() {
        SaslFailure failure = fails("p=tls-unique,,n=alice,r=abc");
        assertEquals(SaslFailure.Reason.UNSUPPORTED, failure.reason());
        assertTrue(failure.getMessage().contains("channel binding"), failure.getMessage());
    }

    @Test
    void mandatoryExtensionIsRefused() {
        SaslFailure failure = fails("n,,m=ext,n=alice,r=abc");
        assertEquals(SaslFailure.Reason.UNSUPPORTED, failure.reason());
    }

    @Test
    void delegationTokenExtensionIsRefused() {
        SaslFailure failure = fails("n,,n=alice,r=abc,tokenauth=true");
        assertEquals(SaslFailure.Reason.UNSUPPORTED, failure.reason());
        assertTrue(failure.getMessage().contains("delegation tokens are not supported"), failure.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello", "n,", "x,,n=alice,r=abc", "n,,r=abc,n=alice", "n,,n=alice", "n,,n=,r=abc",
        "n,,n=alice,r=", "n,,n=al=2Xice,r=abc", "n,,n=alice=,r=abc", "n,,n=alice,r=a b", "n,,n=alice,r=abc,=x",
        "n,,n=alice,r=abc,noequals", "n,a=,n=alice,r=abc", "n,b=alice,n=alice,r=abc", "n,,n=al\u0000ice,r=abc"})
    void malformedClientFirstMessagesFail(String message) {
        SaslFailure failure = fails(message);
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason(), failure.getMessage());
        assertTrue(failure.getMessage().startsWith("Authentication failed: malformed SCRAM-SHA-256 token: "),
                failure.getMessage());
    }

    @Test
    void saslnameEscapesDecode() {
        assertEquals(Optional.of("a,b=c"), SaslNames.decode("a=2Cb=3Dc"));
        assertEquals(Optional.empty(), SaslNames.decode("a=2c"));
        assertEquals(Optional.empty(), SaslNames.decode("a="));
        assertEquals("a=2Cb=3Dc", SaslNames.encode("a,b=c"));
    }

    @Test
    void garbageTokensFail() {
        failsMalformed("\u00ff\u00fe", "");
        ScramServer fresh = new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom());
        SaslFailure badUtf8 = assertThrows(SaslFailure.class, () -> fresh.evaluate(new byte[] {(byte) 0xff, 0x41}));
        assertTrue(badUtf8.getMessage().contains("not valid UTF-8"), badUtf8.getMessage());
        ScramServer empty = new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom());
        assertThrows(SaslFailure.class, () -> empty.evaluate(new byte[0]));
        ScramServer nullToken = new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom());
        assertThrows(SaslFailure.class, () -> nullToken.evaluate(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"garbage", "c=biws,r=abc", "r=abc,c=biws,p=AAAA", "c=!!!!,r=abc,p=AAAA",
        "c=biws,r=abc,p=AAAA", "c=biws,r=abc,p=!!", "c=biws,r=abc,bad,p=AAAA"})
    void malformedClientFinalMessagesFail(String message) throws Exception {
        server.evaluate("n,,n=alice,r=abc".getBytes(UTF_8));
        failsMalformed(message, "client-final-message");
    }

    @Test
    void tokenOverTheLimitFails() {
        byte[] token = new byte[ScramServer.TOKEN_BYTES_MAX + 1];
        Arrays.fill(token, (byte) 'a');
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(token));
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason());
        assertTrue(failure.getMessage().contains("exceeds 8192 bytes"), failure.getMessage());
    }

    @Test
    void tokenAtTheLimitIsParsedNormally() throws Exception {
        String prefix = "n,,n=alice,r=abc,pad=";
        String token = prefix + "x".repeat(ScramServer.TOKEN_BYTES_MAX - prefix.length());
        assertEquals(ScramServer.TOKEN_BYTES_MAX, token.length());
        server.evaluate(token.getBytes(UTF_8));
    }

    @Test
    void userNameOverTheLimitFails() throws Exception {
        String atLimit = "u".repeat(ScramServer.USERNAME_BYTES_MAX);
        new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom())
                .evaluate(("n,,n=" + atLimit + ",r=abc").getBytes(UTF_8));
        // Two bytes per character in UTF-8: 257 of them exceed 512 bytes.
        SaslFailure failure = fails("n,,n=" + "\u00e9".repeat(257) + ",r=abc");
        assertTrue(failure.getMessage().contains("user name exceeds 512 bytes"), failure.getMessage());
    }

    @Test
    void clientNonceOverTheLimitFails() throws Exception {
        new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom())
                .evaluate(("n,,n=alice,r=" + "n".repeat(ScramServer.CLIENT_NONCE_CHARS_MAX)).getBytes(UTF_8));
        SaslFailure failure = fails("n,,n=alice,r=" + "n".repeat(ScramServer.CLIENT_NONCE_CHARS_MAX + 1));
        assertTrue(failure.getMessage().contains("client nonce exceeds 256 characters"), failure.getMessage());
    }

    /** A lookup handing back another mechanism's credential is a broker bug, not a client failure. */
    @Test
    void credentialOfTheWrongMechanismIsABug() {
        ScramCredential sha512 = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "pw", new byte[] {1},
                4096);
        ScramServer confused = new ScramServer(MECHANISM, name -> Optional.of(sha512), new SecureRandom());
        assertThrows(IllegalStateException.class, () -> confused.evaluate("n,,n=alice,r=abc".getBytes(UTF_8)));
    }

    @Test
    void unknownUserStandInsAreDeterministicPerKey() {
        UnknownUserCredentials key1 = new UnknownUserCredentials(new byte[] {1, 2, 3});
        assertEquals(key1.forUser(MECHANISM, "mallory"), new UnknownUserCredentials(new byte[] {1, 2, 3})
                .forUser(MECHANISM, "mallory"));
        assertFalse(key1.forUser(MECHANISM, "mallory").equals(new UnknownUserCredentials(new byte[] {4})
                .forUser(MECHANISM, "mallory")));
        assertEquals(ScramMechanism.ITERATIONS_MIN, key1.forUser(MECHANISM, "mallory").iterations());
    }

    /** Even if a stand-in credential could be matched, an unknown user never authenticates. */
    @Test
    void unknownUserFailsEvenWithAMatchingStandIn() throws Exception {
        ScramServer standInKnown = new ScramServer(MECHANISM, name -> Optional.empty(), new SecureRandom(),
                (mechanism, name) -> store.get("alice"));
        ManualScramClient client = new ManualScramClient(MECHANISM, PASSWORD);
        byte[] serverFirst = standInKnown.evaluate(client.first("n,,", "n=alice,r=abc"));
        byte[] clientFinal = client.finalMessage(serverFirst, "");
        assertTrue(assertThrows(SaslFailure.class, () -> standInKnown.evaluate(clientFinal)).isInvalidCredentials());
        assertFalse(standInKnown.isComplete());
    }

    @Test
    void failureMessagesNeverCarryTheClientsSecrets() throws Exception {
        ManualScramClient client = new ManualScramClient(MECHANISM, "not-the-password");
        byte[] serverFirst = server.evaluate(client.first("n,,", "n=alice,r=abc"));
        String clientFinal = new String(client.finalMessage(serverFirst, ""), UTF_8);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(clientFinal.getBytes(UTF_8)));
        String salt = new String(serverFirst, UTF_8).split(",")[1].substring(2);
        String proof = clientFinal.substring(clientFinal.indexOf(",p=") + 3);
        assertFalse(failure.getMessage().contains(salt));
        assertFalse(failure.getMessage().contains(proof));
        assertFalse(failure.getMessage().contains("alice"));
        assertFalse(failure.getMessage().contains("password"));
    }
}
