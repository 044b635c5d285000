package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.message.ApiVersionsResponse.ApiVersion;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ApiVersions lists exactly the served APIs, with the ranges of the version table (kafka-protocol.md A.1). */
class ApiVersionsHandlerTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void advertisesOnlyServedApisWithTheirTableRanges(int version) {
        ApiVersionsHandler handler = new ApiVersionsHandler(Set.of(ApiKey.PRODUCE, ApiKey.FETCH, ApiKey.METADATA));
        Struct body = new Struct(ApiVersionsRequest.SCHEMA);
        if (version >= 3) {
            body.set(ApiVersionsRequest.CLIENT_SOFTWARE_NAME, "test").set(ApiVersionsRequest.CLIENT_SOFTWARE_VERSION,
                    "1");
        }
        Struct response = call(handler, request(ApiKey.API_VERSIONS, version, body));
        assertEquals(ErrorCode.NONE.code(), response.get(ApiVersionsResponse.ERROR_CODE));
        Map<Short, List<Short>> ranges = response.get(ApiVersionsResponse.API_KEYS).stream().collect(
                Collectors.toMap(k -> k.get(ApiVersion.API_KEY),
                        k -> List.of(k.get(ApiVersion.MIN_VERSION), k.get(ApiVersion.MAX_VERSION))));
        // ApiVersions itself is always listed; Produce keeps its advertised minimum of 0 (KAFKA-18659).
        assertEquals(Map.of(
                ApiKey.API_VERSIONS.id(), List.of((short) 0, ApiKey.API_VERSIONS.maxVersion()),
                ApiKey.PRODUCE.id(), List.of((short) 0, ApiKey.PRODUCE.maxVersion()),
                ApiKey.FETCH.id(), List.of(ApiKey.FETCH.minVersion(), ApiKey.FETCH.maxVersion()),
                ApiKey.METADATA.id(), List.of(ApiKey.METADATA.minVersion(), ApiKey.METADATA.maxVersion())), ranges);
    }
}
