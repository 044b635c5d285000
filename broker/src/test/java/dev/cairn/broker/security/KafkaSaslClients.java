package dev.cairn.broker.security;

import java.io.IOException;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;

/**
 * The SASL clients Kafka's own producers and consumers use: Kafka's SCRAM client (registered by
 * {@link ScramSaslClientProvider}) and, for PLAIN, the JDK's client, which Kafka's PlainLoginModule relies on.
 */
final class KafkaSaslClients {

    static {
        ScramSaslClientProvider.initialize();
    }

    private KafkaSaslClients() {
    }

    static SaslClient scram(ScramMechanism mechanism, String user, String password) throws SaslException {
        return scram(mechanism, user, password, Map.of());
    }

    static SaslClient scram(ScramMechanism mechanism, String user, String password, Map<String, String> extensions)
            throws SaslException {
        return Sasl.createSaslClient(new String[] {mechanism.mechanismName()}, null, "kafka", "localhost",
                Map.of(), handler(user, password, extensions));
    }

    static SaslClient plain(String authzid, String user, String password) throws SaslException {
        return Sasl.createSaslClient(new String[] {PlainServer.MECHANISM}, authzid, "kafka", "localhost",
                Map.of(), handler(user, password, Map.of()));
    }

    private static CallbackHandler handler(String user, String password, Map<String, String> extensions) {
        return callbacks -> {
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    name.setName(user);
                } else if (callback instanceof PasswordCallback pass) {
                    pass.setPassword(password.toCharArray());
                } else if (callback instanceof ScramExtensionsCallback ext) {
                    ext.extensions(extensions);
                } else {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        };
    }

    /** Runs a whole SCRAM exchange, returning the server once the client has checked its signature. */
    static ScramServer authenticate(SaslClient client, ScramServer server) throws SaslFailure, IOException {
        byte[] clientFirst = client.evaluateChallenge(new byte[0]);
        byte[] clientFinal = client.evaluateChallenge(server.evaluate(clientFirst));
        client.evaluateChallenge(server.evaluate(clientFinal));
        if (!client.isComplete()) {
            throw new IllegalStateException("Kafka's client did not complete");
        }
        return server;
    }
}
