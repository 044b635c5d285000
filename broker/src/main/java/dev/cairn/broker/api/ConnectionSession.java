package dev.cairn.broker.api;

import dev.cairn.broker.security.SaslMechanismServer;
import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ApiKey;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

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
    private final AccessControl access;
    private final String host;
    private final boolean saslListener;
    /** The name of the listener the connection came in on (Kafka's listener name), or null when there is one. */
    private final String listenerName;
    /** When the SASL session ends (System.nanoTime), or {@link Long#MAX_VALUE}: connections.max.reauth.ms. */
    private volatile long sessionEndNanos = Long.MAX_VALUE;
    /** How a TLS client certificate's subject becomes the principal's name. */
    private Function<String, Optional<String>> certificatePrincipal = Optional::of;
    /** The user of the first login; a re-authentication (KIP-368) must keep it. */
    private volatile String saslUser;

    private ConnectionSession(Stage stage, AccessControl access, String host, String listenerName) {
        this.stage = stage;
        this.access = access;
        this.host = host;
        this.listenerName = listenerName;
        this.saslListener = stage == Stage.HANDSHAKE;
    }

    /** A connection with nothing to log in to and no ACLs (tests, and brokers without security). */
    public static ConnectionSession plaintext() {
        return new ConnectionSession(Stage.DONE, AccessControl.OPEN, "*", null);
    }

    /**
     * A connection from {@code host} (the client's IP address, which ACLs may name), checked by {@code access};
     * on a SASL listener it may send nothing but ApiVersions and SASL until it logs in.
     */
    public static ConnectionSession of(boolean saslRequired, AccessControl access, String host) {
        return of(saslRequired, access, host, null);
    }

    /** As {@link #of(boolean, AccessControl, String)}, on the listener named {@code listenerName}. */
    public static ConnectionSession of(boolean saslRequired, AccessControl access, String host, String listenerName) {
        return of(saslRequired, access, host, listenerName, Optional::of);
    }

    /**
     * As {@link #of(boolean, AccessControl, String, String)}, naming a TLS client by {@code certificatePrincipal}
     * (ssl.principal.mapping.rules over the certificate's subject; empty when no rule matches).
     */
    public static ConnectionSession of(boolean saslRequired, AccessControl access, String host, String listenerName,
            Function<String, Optional<String>> certificatePrincipal) {
        ConnectionSession session = new ConnectionSession(saslRequired ? Stage.HANDSHAKE : Stage.DONE, access, host,
                listenerName);
        session.certificatePrincipal = certificatePrincipal;
        return session;
    }

    /**
     * The listener the connection came in on: Metadata and FindCoordinator answer with the brokers' endpoints of
     * that listener, as Kafka does. Null on a broker with one listener, whose one endpoint every answer names.
     */
    public String listenerName() {
        return listenerName;
    }

    /** A connection on a SASL listener without ACLs. */
    public static ConnectionSession saslRequired() {
        return of(true, AccessControl.OPEN, "*");
    }

    /** Whether this connection's principal may do {@code operation} on the named resource. */
    public boolean allowed(AclOperation operation, ResourceType type, String name) {
        return access.authorizer().authorize(principal, host, operation, type, name);
    }

    /** {@link #allowed} on a topic. */
    public boolean allowedOnTopic(AclOperation operation, String topic) {
        return allowed(operation, ResourceType.TOPIC, topic);
    }

    /** {@link #allowed} on a consumer group. */
    public boolean allowedOnGroup(AclOperation operation, String group) {
        return allowed(operation, ResourceType.GROUP, group);
    }

    /** {@link #allowed} on the cluster. */
    public boolean allowedOnCluster(AclOperation operation) {
        return allowed(operation, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    }

    /** Whether the principal may do {@code operation} on at least one resource of {@code type}. */
    public boolean allowedOnAny(AclOperation operation, ResourceType type) {
        return access.authorizer().authorizeAny(principal, host, operation, type);
    }

    /** Kafka's authorized-operations bit field for a resource, over {@code candidates}. */
    public int authorizedOperations(ResourceType type, String name, Set<AclOperation> candidates) {
        return access.authorizer().authorizedOperations(principal, host, type, name, candidates);
    }

    /** The broker's ACLs (CreateAcls, DescribeAcls, DeleteAcls). */
    public AccessControl accessControl() {
        return access;
    }

    /** Whether a request with this API key may be handled now. */
    public boolean permits(short apiKey) {
        return permits(apiKey, System.nanoTime());
    }

    /**
     * As {@link #permits(short)} at {@code nowNanos}. Once a SASL session has ended (connections.max.reauth.ms
     * passed without a re-authentication) only SaslHandshake is let through, and Kafka closes the connection on
     * anything else, as here.
     */
    public boolean permits(short apiKey, long nowNanos) {
        return switch (stage) {
            case DONE -> sessionEndNanos == Long.MAX_VALUE || nowNanos - sessionEndNanos < 0
                    || apiKey == ApiKey.SASL_HANDSHAKE.id();
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

    /**
     * Sets the principal from the TLS client certificate's subject (mutual TLS), before any request, as the
     * listener's ssl.principal.mapping.rules name it. Returns false, leaving the principal as it was, when no rule
     * matches: the client is then not authenticated and its connection is closed.
     */
    public boolean tlsClient(String subject) {
        Optional<String> name = certificatePrincipal.apply(subject);
        name.ifPresent(n -> this.principal = "User:" + n);
        return name.isPresent();
    }

    /** The mechanism chosen by SaslHandshake; SaslAuthenticate feeds it. */
    public SaslMechanismServer mechanism() {
        return mechanism;
    }

    /** Whether a SaslHandshake may start a (re-)authentication now: before login, or after one (KIP-368). */
    boolean mayStartSasl() {
        return stage == Stage.HANDSHAKE || (saslListener && stage == Stage.DONE);
    }

    /** The user of the completed login, or null; a re-authentication must name the same one. */
    String saslUser() {
        return saslUser;
    }

    void startSasl(SaslMechanismServer chosen) {
        this.mechanism = chosen;
        this.stage = Stage.AUTHENTICATE;
    }

    void authenticated(String user, long sessionEndNanos) {
        this.saslUser = user;
        this.sessionEndNanos = sessionEndNanos;
        this.principal = "User:" + user;
        this.mechanism = null;
        this.stage = Stage.DONE;
    }

    void failed() {
        this.mechanism = null;
        this.stage = Stage.FAILED;
    }
}
