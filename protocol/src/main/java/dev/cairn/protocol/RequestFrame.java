package dev.cairn.protocol;

import dev.cairn.protocol.schema.Struct;

/**
 * A decoded request: its header and, if Cairn serves the API in that version, its body. An unsupported request
 * has a null body; the broker answers an unsupported ApiVersions with
 * {@link ProtocolCodec#encodeUnsupportedVersionResponse} and closes the connection for any other, because no
 * response can be encoded in a version it has no schema for.
 *
 * @param header the request header
 * @param apiKey the API, or null if Cairn does not serve the header's api key
 * @param body the request body, or null if the API or version is unsupported
 */
public record RequestFrame(RequestHeader header, ApiKey apiKey, Struct body) {
    public boolean isSupported() {
        return body != null;
    }

    public short apiVersion() {
        return header.apiVersion();
    }
}
