package dev.cairn.broker.security;

import java.security.MessageDigest;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The server side of SASL PLAIN (RFC 4616), as Kafka clients use it: one client message
 * {@code [authzid] NUL authcid NUL passwd} in UTF-8, no reply, done. PLAIN sends the password itself, so it belongs
 * on TLS listeners; the broker decides that, not this class.
 *
 * <p>An unknown user and a wrong password fail with the same message, and the password comparison takes the same
 * path for both (against a dummy when the user is unknown), so neither the reply nor its timing tells a client
 * which user names exist. Kafka accepts an authorization id only when it is empty or equal to the user name; so
 * does Cairn.
 */
public final class PlainServer implements SaslMechanismServer {

    /** The mechanism's SASL name. */
    public static final String MECHANISM = "PLAIN";

    private static final byte[] UNKNOWN_USER_PASSWORD = Utf8.encode("\u0000not-a-password\u0000");

    private final Function<String, Optional<String>> passwords;
    private boolean used;
    private String user;

    /**
     * @param passwords looks up a user's password (e.g. from {@link JaasPlainUsers#parse}); empty for an unknown
     *     user
     */
    public PlainServer(Function<String, Optional<String>> passwords) {
        this.passwords = Objects.requireNonNull(passwords, "passwords");
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslFailure {
        if (used) {
            throw SaslFailure.malformed(MECHANISM, user != null
                    ? "token received after authentication completed"
                    : "token received after authentication failed");
        }
        used = true;
        if (clientToken == null || clientToken.length == 0) {
            throw SaslFailure.malformed(MECHANISM, "empty message");
        }
        if (clientToken.length > TOKEN_BYTES_MAX) {
            throw SaslFailure.malformed(MECHANISM, "message exceeds " + TOKEN_BYTES_MAX + " bytes");
        }
        String message = Utf8.decode(clientToken)
                .orElseThrow(() -> SaslFailure.malformed(MECHANISM, "message is not valid UTF-8"));
        int first = message.indexOf('\u0000');
        int second = first < 0 ? -1 : message.indexOf('\u0000', first + 1);
        if (second < 0 || message.indexOf('\u0000', second + 1) >= 0) {
            throw SaslFailure.malformed(MECHANISM, "expected [authzid] NUL authcid NUL passwd");
        }
        String authzid = message.substring(0, first);
        String authcid = message.substring(first + 1, second);
        String password = message.substring(second + 1);
        if (authcid.isEmpty()) {
            throw SaslFailure.malformed(MECHANISM, "empty username");
        }
        if (password.isEmpty()) {
            throw SaslFailure.malformed(MECHANISM, "empty password");
        }
        if (!authzid.isEmpty() && !authzid.equals(authcid)) {
            throw SaslFailure.withMessage(SaslFailure.Reason.UNSUPPORTED,
                    "Authentication failed: Client requested an authorization id that is different from username");
        }
        Optional<String> expected = passwords.apply(authcid);
        byte[] expectedBytes = expected.map(Utf8::encode).orElse(UNKNOWN_USER_PASSWORD);
        boolean matches = MessageDigest.isEqual(expectedBytes, Utf8.encode(password));
        if (!matches || expected.isEmpty()) {
            throw SaslFailure.invalidCredentials(MECHANISM);
        }
        user = authcid;
        return new byte[0];
    }

    @Override
    public boolean isComplete() {
        return user != null;
    }

    @Override
    public String authenticatedUser() {
        if (user == null) {
            throw new IllegalStateException("PLAIN authentication has not completed");
        }
        return user;
    }

    @Override
    public String mechanismName() {
        return MECHANISM;
    }
}
