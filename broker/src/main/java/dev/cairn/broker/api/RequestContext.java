package dev.cairn.broker.api;

/** Who sent a request: a connection id unique within this broker process, and the client's address. */
public record RequestContext(long connectionId, String clientAddress) {
}
