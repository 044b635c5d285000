package dev.cairn.broker.api;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.schema.Struct;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Routes each decoded request to the one handler registered for its API. */
public final class ApiDispatcher implements RequestHandler {
    private final Map<ApiKey, RequestHandler> handlers;

    public ApiDispatcher(Map<ApiKey, RequestHandler> handlers) {
        this.handlers = new EnumMap<>(handlers);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        RequestHandler handler = handlers.get(request.apiKey());
        if (handler == null) {
            // ApiVersions advertises only served APIs, so this is a bug, and the connection is closed.
            return CompletableFuture.failedFuture(new IllegalStateException("no handler for " + request.apiKey()));
        }
        return handler.handle(context, request);
    }
}
