package dev.cairn.broker.api;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.Framing;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.schema.Struct;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Drives handlers through the real codec: requests are encoded and decoded in the version under test (so absent
 * fields carry their spec defaults), and responses are encoded and decoded back, which fails on a null in a
 * non-nullable field or a field the version lacks.
 */
final class ApiTestSupport {
    static final RequestContext CONTEXT = new RequestContext(1, "127.0.0.1:50000");
    private static final long RESPONSE_WAIT_MS_MAX = 10_000;
    private static int correlationId;

    private ApiTestSupport() {
    }

    static RequestFrame request(ApiKey apiKey, int version, Struct body) {
        RequestHeader header = new RequestHeader(apiKey.id(), (short) version, ++correlationId, "test-client");
        ByteBuffer frame = ProtocolCodec.encodeRequest(header, body);
        frame.position(Framing.SIZE_PREFIX_BYTES);
        return ProtocolCodec.decodeRequest(frame.slice());
    }

    /** Runs the handler and returns its response as a client in the request's version would decode it. */
    static Struct call(RequestHandler handler, RequestFrame request) {
        return call(handler, request, CONTEXT);
    }

    /** As {@link #call(RequestHandler, RequestFrame)}, from the connection {@code context}. */
    static Struct call(RequestHandler handler, RequestFrame request, RequestContext context) {
        CompletableFuture<Struct> future = handler.handle(context, request);
        Struct response;
        try {
            response = future.get(RESPONSE_WAIT_MS_MAX, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("handler did not answer " + request.apiKey() + " within "
                    + RESPONSE_WAIT_MS_MAX + " ms", e);
        }
        return roundTrip(request, response);
    }

    static Struct roundTrip(RequestFrame request, Struct response) {
        ByteBuffer frame = ProtocolCodec.encodeResponse(request.header(), response);
        frame.position(Framing.SIZE_PREFIX_BYTES);
        return ProtocolCodec.decodeResponse(frame.slice(), request.apiKey(), request.apiVersion()).body();
    }
}
