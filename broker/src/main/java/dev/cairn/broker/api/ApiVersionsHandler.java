package dev.cairn.broker.api;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/**
 * ApiVersions (key 18): the supported-version table, computed from {@link ApiKey}. Versions Cairn does not know
 * never reach here; the network layer answers them in v0 format (KIP-511).
 */
public final class ApiVersionsHandler implements RequestHandler {
    private static final Struct RESPONSE = ApiKey.apiVersionsResponse(ErrorCode.NONE);

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        return CompletableFuture.completedFuture(RESPONSE);
    }
}
