package dev.cairn.protocol;

import dev.cairn.protocol.schema.SchemaCodec;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferReadable;
import dev.cairn.protocol.wire.ByteBufferWritable;
import dev.cairn.protocol.wire.DecodeException;
import dev.cairn.protocol.wire.Readable;
import dev.cairn.protocol.wire.Writable;
import java.nio.ByteBuffer;

/**
 * The entry points the broker and the client use. A frame here is the bytes after the int32 size prefix (see
 * {@link Framing#nextFrame}); encoders return or write whole frames, size prefix included.
 *
 * <p>Broker: {@link #decodeRequest} then {@link #encodeResponse} (or {@link #responseFrameBytes} and
 * {@link #writeResponse} into a network sink that passes records payloads on without copying them).
 * Client: {@link #encodeRequest} then {@link #decodeResponse}.
 *
 * <p>Decoding is strict: a body must use the whole frame, and anything malformed raises {@link DecodeException}.
 */
public final class ProtocolCodec {
    private ProtocolCodec() {
    }

    // ------------------------------------------------------------------------------------------- broker

    /**
     * Decodes a request frame; an unknown API or unsupported version yields a frame without a body. The frame's
     * position is not moved. Records values in the body are slices of the frame, so the frame's memory must stay
     * valid (a pooled network buffer unreleased) for as long as the body is used.
     */
    public static RequestFrame decodeRequest(ByteBuffer frame) {
        return decodeRequest(new ByteBufferReadable(frame.duplicate()));
    }

    /**
     * As {@link #decodeRequest(ByteBuffer)}, but the request holds nothing of {@code frame}: record batches are
     * copied out, each into a heap buffer of its own (the one copy of a produced batch), so the frame can go back to
     * the network layer's pool as soon as this returns.
     */
    public static RequestFrame decodeRequestDetached(ByteBuffer frame) {
        return decodeRequest(new ByteBufferReadable(frame.duplicate(), true));
    }

    /**
     * Bytes after a request's body are ignored, as Kafka ignores them: librdkafka 2.x sends three after the body
     * of a flexible Metadata request for all topics, and Kafka 4.4 answers it (checked on the wire). A response,
     * which Cairn's client decodes, must still be read to its last byte.
     */
    private static RequestFrame decodeRequest(Readable in) {
        RequestHeader header = RequestHeader.read(in);
        ApiKey apiKey = ApiKey.forId(header.apiKey());
        if (apiKey == null || !apiKey.isSupported(header.apiVersion())) {
            return new RequestFrame(header, apiKey, null);
        }
        Struct body = SchemaCodec.read(apiKey.requestSchema(), header.apiVersion(), in);
        return new RequestFrame(header, apiKey, body);
    }

    /** The size of a response frame, including its size prefix. */
    public static int responseFrameBytes(RequestHeader requestHeader, Struct body) {
        ApiKey apiKey = responseApiKey(requestHeader, body);
        short version = requestHeader.apiVersion();
        return Framing.SIZE_PREFIX_BYTES + responseHeaderBytes(apiKey, version) + SchemaCodec.size(body, version);
    }

    /** Writes a response frame (size prefix, response header, body) in the version of the request. */
    public static void writeResponse(RequestHeader requestHeader, Struct body, Writable out) {
        ApiKey apiKey = responseApiKey(requestHeader, body);
        short version = requestHeader.apiVersion();
        out.writeInt(responseFrameBytes(requestHeader, body) - Framing.SIZE_PREFIX_BYTES);
        out.writeInt(requestHeader.correlationId());
        if (apiKey.responseHeaderVersion(version) == ApiKey.RESPONSE_HEADER_VERSION_FLEXIBLE) {
            out.writeEmptyTaggedFields();
        }
        SchemaCodec.write(body, version, out);
    }

    /** Encodes a response frame into a new heap buffer, positioned at its start. */
    public static ByteBuffer encodeResponse(RequestHeader requestHeader, Struct body) {
        ByteBuffer frame = ByteBuffer.allocate(responseFrameBytes(requestHeader, body));
        writeResponse(requestHeader, body, new ByteBufferWritable(frame));
        return checkFilled(frame);
    }

    /**
     * Answers an ApiVersions request whose version Cairn does not know: UNSUPPORTED_VERSION (35) in a v0-format
     * body that lists the supported APIs. The client re-parses the body as v0 and retries with the highest
     * ApiVersions version listed (shared docs kafka-protocol.md, "ApiVersions fallback"; KIP-511).
     */
    public static ByteBuffer encodeUnsupportedVersionResponse(RequestHeader requestHeader) {
        if (requestHeader.apiKey() != ApiKey.API_VERSIONS.id()) {
            throw new IllegalArgumentException("only ApiVersions has a version-independent error response");
        }
        RequestHeader asVersionZero = new RequestHeader(requestHeader.apiKey(), (short) 0,
                requestHeader.correlationId(), requestHeader.clientId());
        return encodeResponse(asVersionZero, ApiKey.apiVersionsResponse(ErrorCode.UNSUPPORTED_VERSION));
    }

    private static ApiKey responseApiKey(RequestHeader requestHeader, Struct body) {
        ApiKey apiKey = ApiKey.forId(requestHeader.apiKey());
        if (apiKey == null || body.schema() != apiKey.responseSchema()) {
            throw new IllegalArgumentException("body " + body.schema() + " does not answer api key "
                    + requestHeader.apiKey());
        }
        if (!apiKey.responseSchema().declaredVersions().contains(requestHeader.apiVersion())) {
            throw new IllegalArgumentException("no schema for " + apiKey + " version " + requestHeader.apiVersion());
        }
        return apiKey;
    }

    private static int responseHeaderBytes(ApiKey apiKey, short version) {
        boolean flexible = apiKey.responseHeaderVersion(version) == ApiKey.RESPONSE_HEADER_VERSION_FLEXIBLE;
        return Integer.BYTES + (flexible ? 1 : 0);
    }

    // ------------------------------------------------------------------------------------------- client

    /** Encodes a request frame (size prefix, header, body) in the header's version. */
    public static ByteBuffer encodeRequest(RequestHeader header, Struct body) {
        ApiKey apiKey = ApiKey.forId(header.apiKey());
        if (apiKey == null || body.schema() != apiKey.requestSchema()
                || !apiKey.requestSchema().declaredVersions().contains(header.apiVersion())) {
            throw new IllegalArgumentException("cannot encode " + body.schema() + " as api key " + header.apiKey()
                    + " version " + header.apiVersion());
        }
        int frameBytes = header.sizeInBytes() + SchemaCodec.size(body, header.apiVersion());
        ByteBuffer frame = ByteBuffer.allocate(Framing.SIZE_PREFIX_BYTES + frameBytes);
        Writable out = new ByteBufferWritable(frame);
        out.writeInt(frameBytes);
        header.write(out);
        SchemaCodec.write(body, header.apiVersion(), out);
        return checkFilled(frame);
    }

    /**
     * Decodes a response frame to a request of the given API and version. An ApiVersions response that does not
     * parse in the requested version is re-parsed as v0, because a broker that does not know the version answers
     * in v0 format (the client then retries with a version from that body).
     */
    public static ResponseFrame decodeResponse(ByteBuffer frame, ApiKey apiKey, short version) {
        if (!apiKey.responseSchema().declaredVersions().contains(version)) {
            throw new IllegalArgumentException("no schema for " + apiKey + " version " + version);
        }
        try {
            return decodeResponseAs(frame, apiKey, version);
        } catch (DecodeException malformed) {
            if (apiKey != ApiKey.API_VERSIONS || version == 0) {
                throw malformed;
            }
            return decodeResponseAs(frame, apiKey, (short) 0);
        }
    }

    private static ResponseFrame decodeResponseAs(ByteBuffer frame, ApiKey apiKey, short version) {
        Readable in = new ByteBufferReadable(frame.duplicate());
        int correlationId = in.readInt();
        if (apiKey.responseHeaderVersion(version) == ApiKey.RESPONSE_HEADER_VERSION_FLEXIBLE) {
            in.skipTaggedFields();
        }
        Struct body = SchemaCodec.read(apiKey.responseSchema(), version, in);
        requireFullyRead(in, apiKey);
        return new ResponseFrame(correlationId, version, body);
    }

    private static void requireFullyRead(Readable in, ApiKey apiKey) {
        if (in.remaining() != 0) {
            throw DecodeException.format("%d bytes left over after the %s body", in.remaining(), apiKey.apiName());
        }
    }

    private static ByteBuffer checkFilled(ByteBuffer frame) {
        if (frame.hasRemaining()) {
            throw new IllegalStateException("encoder wrote " + frame.position() + " of " + frame.capacity()
                    + " computed bytes");
        }
        return frame.flip();
    }
}
