package dev.cairn.broker.security;

import java.util.Objects;

/**
 * A failed SASL exchange, carrying a message meant for the client. Kafka answers every such failure with error
 * SASL_AUTHENTICATION_FAILED and a message; clients print it, so it must help an operator tell a bad password from
 * a broken client, yet never echo a password, salt, proof or any other secret. The factories build every message
 * from fixed text plus the mechanism name, so no client-supplied value can end up in it.
 *
 * <p>{@link #reason()} separates bad credentials (which must look the same whether the user exists or not) from
 * malformed or out-of-order tokens and from requests for features Cairn refuses, so the caller can log and count
 * them apart.
 */
public final class SaslFailure extends Exception {

    private static final long serialVersionUID = 1L;

    /** Kafka's error code for every SASL authentication failure. */
    public static final short SASL_AUTHENTICATION_FAILED = 58;

    /** Why the exchange failed. */
    public enum Reason {
        /** Unknown user or wrong password; the message never says which. */
        INVALID_CREDENTIALS,
        /** A token that breaks the mechanism's grammar, is too large, or arrives out of order. */
        MALFORMED,
        /** A well-formed request for something Cairn does not offer (channel binding, delegation tokens, ...). */
        UNSUPPORTED
    }

    private final Reason reason;

    private SaslFailure(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Bad credentials, worded as Kafka words them so client-side log searches keep working. */
    public static SaslFailure invalidCredentials(String mechanism) {
        return new SaslFailure(Reason.INVALID_CREDENTIALS,
                "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                        + mechanism);
    }

    /**
     * A malformed or out-of-order token.
     *
     * @param what fixed text naming what was wrong, e.g. "client-final-message: channel binding does not match";
     *     callers must not pass client-supplied values
     */
    public static SaslFailure malformed(String mechanism, String what) {
        return new SaslFailure(Reason.MALFORMED, "Authentication failed: malformed " + mechanism + " token: " + what);
    }

    /**
     * A request Cairn refuses.
     *
     * @param what fixed text naming the refused feature; callers must not pass client-supplied values
     */
    public static SaslFailure unsupported(String mechanism, String what) {
        return new SaslFailure(Reason.UNSUPPORTED, "Authentication failed with SASL mechanism " + mechanism + ": "
                + what);
    }

    /** A failure whose whole message is fixed text (used where Kafka's own wording is kept verbatim). */
    static SaslFailure withMessage(Reason reason, String message) {
        return new SaslFailure(reason, message);
    }

    public Reason reason() {
        return reason;
    }

    /** Whether this is a bad user name or password, as opposed to a protocol problem. */
    public boolean isInvalidCredentials() {
        return reason == Reason.INVALID_CREDENTIALS;
    }

    /** The Kafka error code to answer with; SASL_AUTHENTICATION_FAILED for every reason. */
    public short errorCode() {
        return SASL_AUTHENTICATION_FAILED;
    }
}
