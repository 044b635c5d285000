package dev.cairn.protocol.wire;

/**
 * The one exception the codec raises for malformed input: a length past the end of the frame, a negative
 * size where none is allowed, a varint longer than its type, an unknown enum value. Nothing else escapes a
 * decode, so a caller (the broker's network layer) can close the offending connection and carry on.
 */
public final class DecodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DecodeException(String message) {
        super(message, null, false, false);
    }

    public static DecodeException format(String format, Object... args) {
        return new DecodeException(String.format(format, args));
    }
}
