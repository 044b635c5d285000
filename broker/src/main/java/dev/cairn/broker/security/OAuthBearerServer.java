package dev.cairn.broker.security;

import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server half of SASL OAUTHBEARER (RFC 7628, Kafka's KIP-255): the client's initial response carries its access
 * token ({@code n,[a=authzid],^Aauth=Bearer <token>^A[key=value^A]...^A}), which {@link JwtValidator} checks. A
 * refused token is answered, as RFC 7628 and Kafka answer it, with the error challenge
 * {@code {"status":"invalid_token"}}; the client acknowledges with {@code ^A} and the exchange then fails with the
 * reason. An authorization id, when given, must be the token's principal. The session lasts until the token expires
 * ({@link #credentialExpiresAtMs()}).
 */
public final class OAuthBearerServer implements SaslMechanismServer {
    public static final String MECHANISM = "OAUTHBEARER";
    private static final String KV_SEPARATOR = "\u0001";
    private static final Pattern INITIAL_RESPONSE = Pattern.compile(
            "n,(a=(?<authzid>[^,]*))?," + KV_SEPARATOR + "(?<kvpairs>(?:[A-Za-z]+=[\\x21-\\x7E \t\r\n]*"
                    + KV_SEPARATOR + ")*)" + KV_SEPARATOR);
    private static final Pattern BEARER = Pattern.compile("[Bb]earer +(?<token>[-_.A-Za-z0-9+/=~]+)");
    private static final byte[] ERROR_CHALLENGE = "{\"status\":\"invalid_token\"}".getBytes(StandardCharsets.UTF_8);

    private final JwtValidator validator;
    private final LongSupplier clockMs;
    private State state = State.INITIAL;
    private SaslFailure refusal;
    private String user;
    private long expiresAtMs;

    private enum State {
        INITIAL, ERROR_SENT, COMPLETE, FAILED
    }

    public OAuthBearerServer(JwtValidator validator, LongSupplier clockMs) {
        this.validator = validator;
        this.clockMs = clockMs;
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslFailure {
        switch (state) {
            case INITIAL:
                break;
            case ERROR_SENT:
                state = State.FAILED;
                // The client's acknowledgement of the error challenge; the reason goes back with the failure.
                throw refusal;
            default:
                state = State.FAILED;
                throw SaslFailure.malformed(MECHANISM, "token received after the exchange ended");
        }
        if (clientToken.length > TOKEN_BYTES_MAX) {
            state = State.FAILED;
            throw SaslFailure.malformed(MECHANISM, "message exceeds " + TOKEN_BYTES_MAX + " bytes");
        }
        Matcher message = INITIAL_RESPONSE.matcher(new String(clientToken, StandardCharsets.UTF_8));
        if (!message.matches()) {
            state = State.FAILED;
            throw SaslFailure.malformed(MECHANISM, "not an RFC 7628 initial client response");
        }
        String token = null;
        for (String pair : message.group("kvpairs").split(KV_SEPARATOR)) {
            if (pair.startsWith("auth=")) {
                Matcher bearer = BEARER.matcher(pair.substring("auth=".length()));
                if (!bearer.matches()) {
                    state = State.FAILED;
                    throw SaslFailure.malformed(MECHANISM, "the auth value is not \"Bearer <token>\"");
                }
                token = bearer.group("token");
            }
        }
        if (token == null) {
            state = State.FAILED;
            throw SaslFailure.malformed(MECHANISM, "no auth=Bearer value");
        }
        try {
            JwtValidator.Validated validated = validator.validate(token, clockMs.getAsLong());
            String authzid = message.group("authzid");
            if (authzid != null && !authzid.isEmpty() && !authzid.equals(validated.principal())) {
                throw SaslFailure.withMessage(SaslFailure.Reason.INVALID_CREDENTIALS, "Authentication failed: "
                        + "the authorization id differs from the token's principal");
            }
            user = validated.principal();
            expiresAtMs = validated.expiresAtMs();
            state = State.COMPLETE;
            return new byte[0];
        } catch (SaslFailure failure) {
            refusal = failure;
            state = State.ERROR_SENT;
            return ERROR_CHALLENGE.clone();
        }
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public String authenticatedUser() {
        if (state != State.COMPLETE) {
            throw new IllegalStateException("authentication has not completed");
        }
        return user;
    }

    @Override
    public long credentialExpiresAtMs() {
        return state == State.COMPLETE ? expiresAtMs : Long.MAX_VALUE;
    }

    @Override
    public String mechanismName() {
        return MECHANISM;
    }
}
