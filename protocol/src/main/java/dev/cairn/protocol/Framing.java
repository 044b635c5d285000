package dev.cairn.protocol;

import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;

/**
 * Kafka's framing: every request and response is an int32 size followed by that many bytes (header and body).
 */
public final class Framing {
    public static final int SIZE_PREFIX_BYTES = Integer.BYTES;

    private Framing() {
    }

    /**
     * Takes the next complete frame off a buffer of received bytes: returns a slice of the frame's contents (after
     * the size prefix) and advances the buffer past it, or returns null and leaves the buffer untouched if the
     * frame is not complete yet. A negative size or one above {@code frameBytesMax} is a {@link DecodeException}.
     */
    public static ByteBuffer nextFrame(ByteBuffer received, int frameBytesMax) {
        if (received.remaining() < SIZE_PREFIX_BYTES) {
            return null;
        }
        int frameBytes = received.getInt(received.position());
        if (frameBytes < 0 || frameBytes > frameBytesMax) {
            throw DecodeException.format("frame size %d outside [0, %d]", frameBytes, frameBytesMax);
        }
        if (received.remaining() - SIZE_PREFIX_BYTES < frameBytes) {
            return null;
        }
        ByteBuffer frame = received.slice(received.position() + SIZE_PREFIX_BYTES, frameBytes);
        received.position(received.position() + SIZE_PREFIX_BYTES + frameBytes);
        return frame;
    }
}
