package dev.cairn.broker.api;

import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/**
 * Answers decoded Kafka requests. The network layer calls it with a supported request (a body decoded in a
 * version Cairn serves) and writes the response body it completes with, in request order per connection. A
 * future completed with {@code null} means the request gets no response (Produce with acks=0).
 * Client-visible failures are error codes inside the response body; completing exceptionally means a bug, and
 * the connection is closed.
 */
public interface RequestHandler {
    CompletableFuture<Struct> handle(RequestContext context, RequestFrame request);
}
