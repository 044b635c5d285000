package dev.cairn.broker.net;

import dev.cairn.broker.api.ConnectionSession;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.Framing;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteOrder;

/**
 * Kafka's size-prefixed frames, capped at {@code socket.request.max.bytes}, and at {@link
 * Limits#UNAUTHENTICATED_FRAME_BYTES_MAX} while the connection has not logged in: a peer that has not authenticated
 * cannot make the broker buffer a 100 MiB frame (Kafka bounds it the same way, sasl.server.max.receive.size).
 */
final class SessionAwareFrameDecoder extends LengthFieldBasedFrameDecoder {
    private final ConnectionSession session;

    SessionAwareFrameDecoder(int requestBytesMax, ConnectionSession session) {
        super(requestBytesMax, 0, Framing.SIZE_PREFIX_BYTES, 0, Framing.SIZE_PREFIX_BYTES, true);
        this.session = session;
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        long frameBytes = super.getUnadjustedFrameLength(buf, offset, length, order);
        if (session.stage() != ConnectionSession.Stage.DONE && frameBytes > Limits.UNAUTHENTICATED_FRAME_BYTES_MAX) {
            throw new TooLongFrameException("a frame of " + frameBytes + " bytes before authentication (at most "
                    + Limits.UNAUTHENTICATED_FRAME_BYTES_MAX + ")");
        }
        return frameBytes;
    }
}
