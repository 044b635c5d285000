package dev.cairn.broker.api;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.message.ApiVersionsResponse.ApiVersion;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * ApiVersions (key 18): the version ranges from {@link ApiKey} for the APIs this broker has a handler for, and
 * only those. A client that sees an API advertised uses it (the Java consumer's subscribe() would start the
 * group protocol), so advertising an API without a handler would fail that client instead of letting it fall
 * back or report the API as unsupported. Versions Cairn does not know never reach here; the network layer
 * answers them in v0 format (KIP-511).
 */
public final class ApiVersionsHandler implements RequestHandler {
    private final Struct response;

    /** @param served the APIs with a registered handler; ApiVersions itself is always included */
    public ApiVersionsHandler(Set<ApiKey> served) {
        Set<ApiKey> advertised = EnumSet.of(ApiKey.API_VERSIONS);
        advertised.addAll(served);
        List<Struct> apiKeys = new ArrayList<>();
        for (ApiKey apiKey : advertised) {
            apiKeys.add(new Struct(ApiVersion.SCHEMA)
                    .set(ApiVersion.API_KEY, apiKey.id())
                    .set(ApiVersion.MIN_VERSION, apiKey.advertisedMinVersion())
                    .set(ApiVersion.MAX_VERSION, apiKey.maxVersion()));
        }
        this.response = new Struct(ApiVersionsResponse.SCHEMA)
                .set(ApiVersionsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(ApiVersionsResponse.API_KEYS, List.copyOf(apiKeys));
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        return CompletableFuture.completedFuture(response);
    }
}
