package dev.cairn.protocol;

import dev.cairn.protocol.schema.Struct;

/**
 * A decoded response as the client sees it.
 *
 * @param correlationId the correlation id from the response header
 * @param apiVersion the version the body was decoded with (0 after the ApiVersions fallback)
 * @param body the response body
 */
public record ResponseFrame(int correlationId, short apiVersion, Struct body) {
}
