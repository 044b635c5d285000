package dev.cairn.broker.security;

/**
 * The server half of one SASL mechanism for one connection, with no transport in it: the network layer hands over
 * each token the client sent (SaslAuthenticate's auth_bytes) and returns whatever {@link #evaluate} gives back.
 * Keeping the mechanisms free of sockets and Kafka framing lets them be tested byte for byte against Kafka's own
 * client mechanisms, and lets the framing (the legacy unframed tokens or SaslAuthenticate) change without touching
 * the cryptography.
 *
 * <p>An instance serves one authentication attempt and is not thread-safe. After a {@link SaslFailure} the
 * attempt is over: every later call fails too, so a caller cannot keep probing a half-failed exchange.
 */
public interface SaslMechanismServer {

    /**
     * The largest client token accepted, in bytes. Genuine tokens are a few hundred bytes; the bound keeps an
     * unauthenticated peer from making the broker decode and hash arbitrarily large input.
     */
    int TOKEN_BYTES_MAX = 8 * 1024;

    /**
     * Consumes the client's next token and returns the server's reply, which may be empty (PLAIN has none).
     *
     * @throws SaslFailure if the token is malformed, out of order or over {@link #TOKEN_BYTES_MAX}, or the
     *     credentials are wrong; its message is safe to send to the client
     */
    byte[] evaluate(byte[] clientToken) throws SaslFailure;

    /** Whether the client has authenticated; once true, {@link #authenticatedUser()} is valid. */
    boolean isComplete();

    /**
     * The authenticated user name.
     *
     * @throws IllegalStateException if authentication has not completed
     */
    String authenticatedUser();

    /**
     * When the credential the client logged in with expires, in milliseconds since the epoch (an OAUTHBEARER token's
     * {@code exp}), or {@code Long.MAX_VALUE} for credentials without an end (passwords). With re-authentication on
     * (connections.max.reauth.ms), the session ends then at the latest, as in Kafka.
     */
    default long credentialExpiresAtMs() {
        return Long.MAX_VALUE;
    }

    /** The mechanism's SASL name, as the client asks for it in SaslHandshake (e.g. {@code SCRAM-SHA-512}). */
    String mechanismName();
}
