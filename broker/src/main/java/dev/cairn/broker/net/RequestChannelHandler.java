package dev.cairn.broker.net;

import dev.cairn.broker.api.ConnectionSession;
import dev.cairn.broker.api.RequestContext;
import dev.cairn.broker.api.RequestHandler;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.Framing;
import dev.cairn.protocol.ProtocolCodec;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.DecodeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: decodes each frame, hands it to the {@link RequestHandler}, and writes responses in
 * request order however the handlers' futures complete (Kafka clients match responses to their oldest
 * in-flight request). At most {@code inflightMax} requests are outstanding, and the broker-wide
 * {@link RequestBytesBudget} must have room: otherwise the channel stops reading until responses drain, so neither
 * one pipelining client nor many together can queue unbounded work.
 *
 * <p>A malformed frame closes this connection with one log line; no other connection notices. All state is
 * touched on the channel's event loop only.
 */
final class RequestChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RequestChannelHandler.class);

    private final RequestHandler handler;
    private final RequestContext context;
    private final int inflightMax;
    private final NetworkTraffic traffic;
    private final RequestBytesBudget budget;
    /** Whether the connection is TLS: records are then copied into the response, not sent as file regions. */
    private final boolean tls;
    /** Whether this connection asked the budget to wake it (it stopped reading for want of room). */
    private boolean waitingForRoom;
    /** Requests in arrival order; the head is written as soon as its response is ready. */
    private final ArrayDeque<Slot> inflight = new ArrayDeque<>();
    private boolean closed;

    /** A request awaiting its turn to be answered. */
    private static final class Slot {
        final long frameBytes;
        boolean ready;
        List<Object> parts;

        Slot(long frameBytes) {
            this.frameBytes = frameBytes;
        }
    }

    RequestChannelHandler(RequestHandler handler, RequestContext context, int inflightMax, NetworkTraffic traffic,
            RequestBytesBudget budget) {
        this(handler, context, inflightMax, traffic, budget, false);
    }

    RequestChannelHandler(RequestHandler handler, RequestContext context, int inflightMax, NetworkTraffic traffic,
            RequestBytesBudget budget, boolean tls) {
        this.tls = tls;
        this.handler = handler;
        this.context = context;
        this.inflightMax = inflightMax;
        this.traffic = traffic;
        this.budget = budget;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        long frameBytes = Framing.SIZE_PREFIX_BYTES + (long) frame.readableBytes();
        traffic.onRead(frameBytes);
        if (closed) {
            ReferenceCountUtil.release(frame);
            return;
        }
        // Decoded straight from Netty's buffer, which goes back to its pool at once: the request keeps copies only.
        // Each record batch is copied into a heap buffer of its own (the one copy of a produced batch in Cairn's
        // code): Raft keeps batches in its log cache long after this read, and a batch must keep only its own bytes
        // alive, not the whole request it came in (a produce to 8 partitions pinned 8 times its size, and the heap
        // ran out), nor point into a pooled buffer.
        RequestFrame request;
        try {
            request = ProtocolCodec.decodeRequestDetached(frame.nioBuffer());
        } catch (DecodeException e) {
            closeWithReason(ctx, "malformed request: " + e.getMessage());
            return;
        } finally {
            ReferenceCountUtil.release(frame);
        }
        if (!request.isSupported()) {
            onUnsupported(ctx, request, frameBytes);
            return;
        }
        if (!context.session().permits(request.header().apiKey())) {
            // Kafka closes a connection that sends anything but ApiVersions and SASL before it has logged in.
            closeWithReason(ctx, request.apiKey() + (context.session().stage() == ConnectionSession.Stage.FAILED
                    ? " sent after a failed SASL login" : " sent before the SASL login completed"));
            return;
        }
        Slot slot = enqueue(ctx, frameBytes);
        CompletableFuture<Struct> response;
        try {
            response = handler.handle(context, request);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete((body, error) -> {
            if (ctx.executor().inEventLoop()) {
                onResponse(ctx, slot, request, body, error);
            } else {
                ctx.executor().execute(() -> onResponse(ctx, slot, request, body, error));
            }
        });
    }

    private void onUnsupported(ChannelHandlerContext ctx, RequestFrame request, long frameBytes) {
        if (request.header().apiKey() == ApiKey.API_VERSIONS.id()) {
            // KIP-511: answer an unknown ApiVersions version in v0 format so the client can downgrade.
            Slot slot = enqueue(ctx, frameBytes);
            slot.ready = true;
            slot.parts = List.of(Unpooled.wrappedBuffer(
                    ProtocolCodec.encodeUnsupportedVersionResponse(request.header())));
            flushReady(ctx);
            return;
        }
        closeWithReason(ctx, "unsupported api key " + request.header().apiKey() + " version "
                + request.header().apiVersion());
    }

    private Slot enqueue(ChannelHandlerContext ctx, long frameBytes) {
        Slot slot = new Slot(frameBytes);
        inflight.addLast(slot);
        budget.take(frameBytes);
        updateReading(ctx);
        return slot;
    }

    /**
     * Reads from the connection only while it has fewer than {@code inflightMax} requests in flight and the broker's
     * request-bytes budget has room; when the budget is what stops it, asks to be woken once there is room.
     */
    private void updateReading(ChannelHandlerContext ctx) {
        boolean room = budget.hasRoom();
        boolean read = room && inflight.size() < inflightMax;
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
        if (!room && !waitingForRoom) {
            waitingForRoom = true;
            budget.awaitRoom(() -> ctx.executor().execute(() -> {
                waitingForRoom = false;
                if (!closed) {
                    updateReading(ctx);
                }
            }));
        }
    }

    private void onResponse(ChannelHandlerContext ctx, Slot slot, RequestFrame request, Struct body,
            Throwable error) {
        if (closed) {
            return;
        }
        if (error != null) {
            LOG.error("connection {} from {}: {} v{} failed; closing the connection", context.connectionId(),
                    context.clientAddress(), request.apiKey(), request.apiVersion(), error);
            closeQuietly(ctx);
            return;
        }
        slot.ready = true;
        if (body != null) {
            slot.parts = encode(ctx, request, body);
            if (slot.parts == null) {
                return;
            }
        }
        flushReady(ctx);
    }

    private List<Object> encode(ChannelHandlerContext ctx, RequestFrame request, Struct body) {
        int frameBytes = ProtocolCodec.responseFrameBytes(request.header(), body);
        NettyResponseSink sink = new NettyResponseSink(ctx.alloc(), frameBytes, tls);
        try {
            ProtocolCodec.writeResponse(request.header(), body, sink);
            traffic.onWrite(frameBytes);
            return sink.finish();
        } catch (RuntimeException e) {
            sink.discard();
            LOG.error("connection {}: cannot encode {} v{} response; closing the connection",
                    context.connectionId(), request.apiKey(), request.apiVersion(), e);
            closeQuietly(ctx);
            return null;
        }
    }

    private void flushReady(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!inflight.isEmpty() && inflight.peekFirst().ready) {
            Slot slot = inflight.removeFirst();
            budget.giveBack(slot.frameBytes);
            if (slot.parts != null) {
                for (Object part : slot.parts) {
                    ctx.write(part, ctx.voidPromise());
                }
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        updateReading(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake) {
            if (!handshake.isSuccess()) {
                closeWithReason(ctx, "TLS handshake failed: " + handshake.cause().getMessage());
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            try {
                Certificate[] peer = ssl.engine().getSession().getPeerCertificates();
                if (peer.length > 0 && peer[0] instanceof X509Certificate certificate
                        && !context.session().tlsClient(certificate.getSubjectX500Principal().getName())) {
                    closeWithReason(ctx, "no ssl.principal.mapping.rules rule matches the client certificate's "
                            + "subject");
                    return;
                }
            } catch (SSLPeerUnverifiedException e) {
                // No client certificate (ssl.client.auth none or requested): the principal stays anonymous.
            }
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (TlsContexts.isTlsFailure(cause)) {
            closeWithReason(ctx, "TLS: " + cause.getMessage());
        } else if (cause instanceof DecoderException) {
            closeWithReason(ctx, "bad frame: " + cause.getMessage());
        } else {
            closeWithReason(ctx, cause.toString());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        for (Slot slot : inflight) {
            budget.giveBack(slot.frameBytes);
            if (slot.parts != null) {
                slot.parts.forEach(ReferenceCountUtil::release);
            }
        }
        inflight.clear();
        ctx.fireChannelInactive();
    }

    private void closeWithReason(ChannelHandlerContext ctx, String reason) {
        if (!closed) {
            LOG.warn("connection {} from {} closed: {}", context.connectionId(), context.clientAddress(), reason);
        }
        closeQuietly(ctx);
    }

    private void closeQuietly(ChannelHandlerContext ctx) {
        closed = true;
        ctx.close();
    }
}
