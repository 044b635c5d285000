package dev.cairn.protocol;

import dev.cairn.protocol.wire.Readable;
import dev.cairn.protocol.wire.Utf8;
import dev.cairn.protocol.wire.Writable;

/**
 * The request header (Kafka's {@code RequestHeader.json}). Version 1 is api key, api version, correlation id
 * and a nullable client id; version 2 appends a tagged-field section and is used for every flexible request
 * version. The client id keeps its int16 length even in version 2, so a broker can read the header of any
 * ApiVersions request, including versions it does not know.
 *
 * @param apiKey the wire API key, which may be one Cairn does not serve
 * @param apiVersion the requested version, which may be unsupported
 * @param correlationId echoed in the response header
 * @param clientId the client's id, or null
 */
public record RequestHeader(short apiKey, short apiVersion, int correlationId, String clientId) {
    /** The fixed part of every header: api key, api version, correlation id. */
    private static final int FIXED_BYTES = Short.BYTES + Short.BYTES + Integer.BYTES;

    /**
     * Reads a header, including the tagged section when the API is known and the version flexible. The tagged
     * section of an unknown API cannot be located, so its body is never parsed.
     */
    public static RequestHeader read(Readable in) {
        short apiKey = in.readShort();
        short apiVersion = in.readShort();
        int correlationId = in.readInt();
        String clientId = in.readString(false, true);
        ApiKey known = ApiKey.forId(apiKey);
        if (known != null && known.requestHeaderVersion(apiVersion) == ApiKey.REQUEST_HEADER_VERSION_FLEXIBLE) {
            in.skipTaggedFields();
        }
        return new RequestHeader(apiKey, apiVersion, correlationId, clientId);
    }

    /** The header version, which only an API Cairn serves defines. */
    public short headerVersion() {
        ApiKey known = ApiKey.forId(apiKey);
        if (known == null) {
            throw new IllegalStateException("api key " + apiKey + " is not served, so its header version is unknown");
        }
        return known.requestHeaderVersion(apiVersion);
    }

    public int sizeInBytes() {
        int clientIdBytes = clientId == null ? 0 : Utf8.encodedLength(clientId);
        int tagged = headerVersion() == ApiKey.REQUEST_HEADER_VERSION_FLEXIBLE ? 1 : 0;
        return FIXED_BYTES + Short.BYTES + clientIdBytes + tagged;
    }

    public void write(Writable out) {
        out.writeShort(apiKey);
        out.writeShort(apiVersion);
        out.writeInt(correlationId);
        out.writeString(clientId, false);
        if (headerVersion() == ApiKey.REQUEST_HEADER_VERSION_FLEXIBLE) {
            out.writeEmptyTaggedFields();
        }
    }
}
