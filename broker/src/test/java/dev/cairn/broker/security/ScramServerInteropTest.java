package dev.cairn.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.security.sasl.SaslClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link ScramServer} against Kafka's own SCRAM client, the one every Kafka producer and consumer runs. */
class ScramServerInteropTest {

    private final Map<String, ScramCredential> store = new HashMap<>();
    private final List<String> lookups = new ArrayList<>();

    private ScramServer server(ScramMechanism mechanism, String user, String password) {
        store.put(user, ScramCredential.fromPassword(mechanism, password, "pepper".getBytes(UTF_8), 4096));
        return new ScramServer(mechanism, name -> {
            lookups.add(name);
            return Optional.ofNullable(store.get(name));
        }, new SecureRandom());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void kafkasClientAuthenticates(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "alice-secret");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "alice-secret");
        assertFalse(server.isComplete());
        assertThrows(IllegalStateException.class, server::authenticatedUser);

        KafkaSaslClients.authenticate(client, server);

        assertTrue(server.isComplete());
        assertEquals("alice", server.authenticatedUser());
        assertEquals(mechanism.mechanismName(), server.mechanismName());
        assertEquals(List.of("alice"), lookups);
    }

    /** Kafka's client escapes ',' and '=' in the name; the lookup sees the name as typed. */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void userNamesWithCommaAndEqualsRoundTrip(ScramMechanism mechanism) throws Exception {
        String user = "CN=alice,O=example";
        ScramServer server = server(mechanism, user, "pw");
        KafkaSaslClients.authenticate(KafkaSaslClients.scram(mechanism, user, "pw"), server);
        assertEquals(user, server.authenticatedUser());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void unknownExtensionsAreIgnored(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        KafkaSaslClients.authenticate(KafkaSaslClients.scram(mechanism, "alice", "pw", Map.of("foo", "bar")), server);
        assertEquals("alice", server.authenticatedUser());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void delegationTokensAreRefused(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw", Map.of("tokenauth", "true"));
        SaslFailure failure = assertThrows(SaslFailure.class,
                () -> server.evaluate(client.evaluateChallenge(new byte[0])));
        assertEquals(SaslFailure.Reason.UNSUPPORTED, failure.reason());
        assertTrue(failure.getMessage().contains("delegation tokens are not supported"), failure.getMessage());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void wrongPasswordFailsAtTheProof(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "alice-secret");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "guess");
        byte[] serverFirst = server.evaluate(client.evaluateChallenge(new byte[0]));
        byte[] clientFinal = client.evaluateChallenge(serverFirst);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(clientFinal));
        assertTrue(failure.isInvalidCredentials());
        assertEquals(SaslFailure.SASL_AUTHENTICATION_FAILED, failure.errorCode());
        assertEquals("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + mechanism.mechanismName(), failure.getMessage());
        assertFalse(server.isComplete());
        assertThrows(SaslFailure.class, () -> server.evaluate(clientFinal), "the attempt is over");
    }

    /** An unknown user gets a normal-looking salt and fails only at the proof, like a wrong password. */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void unknownUserFailsOnlyAtTheFinalStepWithTheSameMessage(ScramMechanism mechanism) throws Exception {
        ScramServer wrongPassword = server(mechanism, "alice", "alice-secret");
        SaslClient wrongClient = KafkaSaslClients.scram(mechanism, "alice", "guess");
        byte[] wrongFinal = wrongClient.evaluateChallenge(wrongPassword.evaluate(wrongClient.evaluateChallenge(
                new byte[0])));
        String wrongMessage = assertThrows(SaslFailure.class, () -> wrongPassword.evaluate(wrongFinal)).getMessage();

        ScramServer unknown = server(mechanism, "alice", "alice-secret");
        SaslClient client = KafkaSaslClients.scram(mechanism, "mallory", "guess");
        byte[] serverFirst = unknown.evaluate(client.evaluateChallenge(new byte[0]));
        assertTrue(new String(serverFirst, UTF_8).matches("r=[!-+\\--~]+,s=[A-Za-z0-9+/=]+,i=4096"),
                new String(serverFirst, UTF_8));
        byte[] clientFinal = client.evaluateChallenge(serverFirst);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> unknown.evaluate(clientFinal));
        assertTrue(failure.isInvalidCredentials());
        assertEquals(wrongMessage, failure.getMessage());
    }

    /** The stand-in salt is the same on every attempt for a name, as a real salt is, and differs between names. */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void unknownUserSaltIsStablePerName(ScramMechanism mechanism) throws Exception {
        String first = salt(mechanism, "mallory");
        assertEquals(first, salt(mechanism, "mallory"));
        assertFalse(first.equals(salt(mechanism, "trudy")));
    }

    private String salt(ScramMechanism mechanism, String user) throws Exception {
        ScramServer server = new ScramServer(mechanism, name -> Optional.empty(), new SecureRandom());
        String serverFirst = new String(server.evaluate(KafkaSaslClients.scram(mechanism, user, "x")
                .evaluateChallenge(new byte[0])), UTF_8);
        return serverFirst.split(",")[1];
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void tamperedProofFails(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw");
        String clientFinal = new String(client.evaluateChallenge(server.evaluate(client.evaluateChallenge(
                new byte[0]))), UTF_8);
        int p = clientFinal.indexOf(",p=") + 3;
        byte[] proof = Base64.getDecoder().decode(clientFinal.substring(p));
        proof[0] ^= 1;
        String tampered = clientFinal.substring(0, p) + Base64.getEncoder().encodeToString(proof);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(tampered.getBytes(UTF_8)));
        assertTrue(failure.isInvalidCredentials());
        assertFalse(failure.getMessage().contains(clientFinal.substring(p)));
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void wrongNonceFails(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw");
        String clientFinal = new String(client.evaluateChallenge(server.evaluate(client.evaluateChallenge(
                new byte[0]))), UTF_8);
        String tampered = clientFinal.replaceFirst(",r=.", ",r=!");
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(tampered.getBytes(UTF_8)));
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason());
        assertTrue(failure.getMessage().contains("nonce does not match"), failure.getMessage());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void channelBindingMustEchoTheGs2Header(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw");
        String clientFinal = new String(client.evaluateChallenge(server.evaluate(client.evaluateChallenge(
                new byte[0]))), UTF_8);
        assertTrue(clientFinal.startsWith("c=biws,"), clientFinal);
        String tampered = "c=" + Base64.getEncoder().encodeToString("y,,".getBytes(UTF_8)) + clientFinal.substring(6);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(tampered.getBytes(UTF_8)));
        assertTrue(failure.getMessage().contains("channel binding does not match"), failure.getMessage());
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void tokensAfterCompletionFail(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw");
        byte[] clientFirst = client.evaluateChallenge(new byte[0]);
        byte[] clientFinal = client.evaluateChallenge(server.evaluate(clientFirst));
        byte[] serverFinal = server.evaluate(clientFinal);
        client.evaluateChallenge(serverFinal);
        for (byte[] token : List.of(clientFirst, clientFinal, new byte[0])) {
            SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(token));
            assertTrue(failure.getMessage().contains("after authentication completed"), failure.getMessage());
        }
        assertTrue(server.isComplete(), "a stray token does not undo the login");
        assertEquals("alice", server.authenticatedUser());
    }

    /** A replayed client-first-message in the final step is out of order. */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void clientFirstTwiceFails(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        byte[] clientFirst = KafkaSaslClients.scram(mechanism, "alice", "pw").evaluateChallenge(new byte[0]);
        server.evaluate(clientFirst);
        SaslFailure failure = assertThrows(SaslFailure.class, () -> server.evaluate(clientFirst));
        assertEquals(SaslFailure.Reason.MALFORMED, failure.reason());
    }

    /** The server signature in server-final-message is what Kafka's client verified; check its shape too. */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void serverFinalCarriesOnlyTheSignature(ScramMechanism mechanism) throws Exception {
        ScramServer server = server(mechanism, "alice", "pw");
        SaslClient client = KafkaSaslClients.scram(mechanism, "alice", "pw");
        byte[] serverFinal = server.evaluate(client.evaluateChallenge(server.evaluate(client.evaluateChallenge(
                new byte[0]))));
        String text = new String(serverFinal, UTF_8);
        assertTrue(text.startsWith("v="), text);
        assertEquals(mechanism.digestBytes(), Base64.getDecoder().decode(text.substring(2)).length);
        client.evaluateChallenge(serverFinal);
        assertTrue(client.isComplete());
    }
}
