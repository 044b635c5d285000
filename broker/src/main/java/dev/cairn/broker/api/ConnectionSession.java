package dev.cairn.broker.api;

import dev.cairn.broker.security.SaslMechanismServer;
import dev.cairn.protocol.ApiKey;

/**
 * One connection's security state. On a SASL listener a client may send only ApiVersions and SaslHandshake, then
 * SaslAuthenticate until the mechanism completes; anything else before that closes the connection, as Kafka does
 * (the network layer asks {@link #permits(short)} before handing a request on). The principal is Kafka's form,
 * {@code User:<name>}: {@code User:ANONYMOUS} on PLAINTEXT, the certificate subject under mutual TLS, the SASL user
 * once logged in.
 *
 * <p>Requests of one connection are read on one network thread, and the SASL handlers answer before the next frame
 * is read, so the state changes in request order; fields are volatile for the handlers that read them elsewhere.
 */
public final class ConnectionSession {
    /** Kafka's principal for a connection that did not authenticate. */
    public static final String ANONYMOUS = "User:ANONYMOUS";

    /** Where a SASL login stands. */
    public enum Stage {
        /** Expecting SaslHandshake (ApiVersions allowed). */
        HANDSHAKE,
        /** A mechanism was chosen; expecting SaslAuthenticate. */
        AUTHENTICATE,
        /** Logged in, or nothing to log in to. */
        DONE,
        /** Failed; the connection is closed after the answer. */
        FAILED
    }

    private volatile Stage stage;
    private volatile String principal = ANONYMOUS;
    private volatile SaslMechanismServer mechanism;

    private ConnectionSession(Stage stage) {
        this.stage = stage;
    }

    public static ConnectionSession plaintext() {
        return new ConnectionSession(Stage.DONE);
    }

    /** A connection on a SASL listener: nothing but ApiVersions and SASL until it logs in. */
    public static ConnectionSession saslRequired() {
        return new ConnectionSession(Stage.HANDSHAKE);
    }

    /** Whether a request with this API key may be handled now. */
    public boolean permits(short apiKey) {
        return switch (stage) {
            case DONE -> true;
            case HANDSHAKE -> apiKey == ApiKey.API_VERSIONS.id() || apiKey == ApiKey.SASL_HANDSHAKE.id();
            case AUTHENTICATE -> apiKey == ApiKey.SASL_AUTHENTICATE.id();
            case FAILED -> false;
        };
    }

    public Stage stage() {
        return stage;
    }

    public String principal() {
        return principal;
    }

    /** Sets the principal from the TLS client certificate's subject (mutual TLS), before any request. */
    public void tlsClient(String subject) {
        this.principal = "User:" + subject;
    }

    /** The mechanism chosen by SaslHandshake; SaslAuthenticate feeds it. */
    public SaslMechanismServer mechanism() {
        return mechanism;
    }

    void startSasl(SaslMechanismServer chosen) {
        this.mechanism = chosen;
        this.stage = Stage.AUTHENTICATE;
    }

    void authenticated(String user) {
        this.principal = "User:" + user;
        this.mechanism = null;
        this.stage = Stage.DONE;
    }

    void failed() {
        this.mechanism = null;
        this.stage = Stage.FAILED;
    }
}
