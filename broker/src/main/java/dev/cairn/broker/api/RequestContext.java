package dev.cairn.broker.api;

/**
 * Who sent a request: a connection id unique within this broker process, the client's address, and the connection's
 * {@link ConnectionSession} (its principal and, on a SASL listener, how far it is through logging in).
 */
public record RequestContext(long connectionId, String clientAddress, ConnectionSession session) {

    /** A connection on a PLAINTEXT listener: anonymous, nothing to log in to. */
    public RequestContext(long connectionId, String clientAddress) {
        this(connectionId, clientAddress, ConnectionSession.plaintext());
    }
}
