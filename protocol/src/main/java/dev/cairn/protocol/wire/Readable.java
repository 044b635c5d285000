package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Reads Kafka protocol primitives from one frame. Every length read from the wire is checked against
 * {@link #remaining()} before anything is allocated, and malformed input raises {@link DecodeException} and
 * nothing else (protocol guide, "Protocol Primitive Types").
 *
 * <p>Null is encoded as length -1 in the classic encodings and as 0 in the compact (flexible) ones, where every
 * other length is stored plus one. The {@code read*Length} methods return {@link #NULL_LENGTH} for null.
 */
public interface Readable {
    /** What the length readers return for a null string, bytes, records or array. */
    int NULL_LENGTH = -1;

    /** Kafka never serialises a string longer than this many UTF-8 bytes, in either encoding. */
    int STRING_BYTES_MAX = Short.MAX_VALUE;

    /**
     * Arrays whose elements may occupy zero bytes cannot be bounded by the frame size, so their count is bounded
     * by this instead. No supported schema has such an element; the limit keeps the guarantee unconditional.
     */
    int ZERO_BYTE_ELEMENTS_MAX = 1024;

    int remaining();

    byte readByte();

    short readShort();

    int readInt();

    long readLong();

    double readDouble();

    int readUnsignedVarint();

    int readVarint();

    long readVarlong();

    /** Returns a view of the next {@code length} bytes without copying them, and skips past them. */
    ByteBuffer readSlice(int length);

    /** Copies the next {@code length} bytes into a new array. */
    byte[] readBytes(int length);

    void skip(int length);

    default boolean readBoolean() {
        return readByte() != 0;
    }

    default int readUnsignedShort() {
        return Short.toUnsignedInt(readShort());
    }

    default UUID readUuid() {
        long mostSignificant = readLong();
        long leastSignificant = readLong();
        return new UUID(mostSignificant, leastSignificant);
    }

    /** Reads an int16 length (-1 = null) and checks it against the bytes remaining. */
    default int readShortLength() {
        return checkLength(readShort());
    }

    /** Reads an int32 length (-1 = null) and checks it against the bytes remaining. */
    default int readIntLength() {
        return checkLength(readInt());
    }

    /** Reads an unsigned varint length stored plus one (0 = null) and checks it against the bytes remaining. */
    default int readCompactLength() {
        long stored = Integer.toUnsignedLong(readUnsignedVarint());
        if (stored == 0) {
            return NULL_LENGTH;
        }
        if (stored - 1 > remaining()) {
            throw DecodeException.format("compact length %d exceeds the %d bytes remaining", stored - 1,
                    remaining());
        }
        return (int) (stored - 1);
    }

    /** Checks a length just read: -1 means null; any other negative value or overrun is malformed. */
    default int checkLength(int length) {
        if (length < NULL_LENGTH) {
            throw DecodeException.format("negative length %d", length);
        }
        if (length > remaining()) {
            throw DecodeException.format("length %d exceeds the %d bytes remaining", length, remaining());
        }
        return length;
    }

    /** Reads a string, compact or int16-prefixed, and returns null only where {@code nullable} allows it. */
    default String readString(boolean compact, boolean nullable) {
        int length = compact ? readCompactLength() : readShortLength();
        if (length == NULL_LENGTH) {
            if (!nullable) {
                throw new DecodeException("non-nullable string is null");
            }
            return null;
        }
        if (length > STRING_BYTES_MAX) {
            throw DecodeException.format("string of %d bytes exceeds %d", length, STRING_BYTES_MAX);
        }
        if (length == 0) {
            // Empty strings are common (defaults, unset names) and need no allocation.
            return "";
        }
        return new String(readBytes(length), StandardCharsets.UTF_8);
    }

    /** Reads bytes, compact or int32-prefixed, and returns null only where {@code nullable} allows it. */
    default byte[] readBytesField(boolean compact, boolean nullable) {
        int length = compact ? readCompactLength() : readIntLength();
        if (length == NULL_LENGTH) {
            if (!nullable) {
                throw new DecodeException("non-nullable bytes field is null");
            }
            return null;
        }
        return readBytes(length);
    }

    /**
     * Reads an array count (compact or int32) and rejects it, before anything is allocated, if that many elements
     * of at least {@code elementBytesMin} bytes each cannot fit in what remains of the frame. Returns
     * {@link #NULL_LENGTH} for a null array.
     */
    default int readArrayCount(boolean compact, int elementBytesMin) {
        int count;
        if (compact) {
            long stored = Integer.toUnsignedLong(readUnsignedVarint());
            if (stored == 0) {
                return NULL_LENGTH;
            }
            if (stored - 1 > Integer.MAX_VALUE) {
                throw DecodeException.format("array count %d overflows", stored - 1);
            }
            count = (int) (stored - 1);
        } else {
            count = readInt();
            if (count == NULL_LENGTH) {
                return NULL_LENGTH;
            }
            if (count < 0) {
                throw DecodeException.format("negative array count %d", count);
            }
        }
        if (elementBytesMin == 0) {
            if (count > ZERO_BYTE_ELEMENTS_MAX) {
                throw DecodeException.format("array count %d exceeds %d", count, ZERO_BYTE_ELEMENTS_MAX);
            }
        } else if ((long) count * elementBytesMin > remaining()) {
            throw DecodeException.format("array of %d elements of at least %d bytes exceeds the %d bytes remaining",
                    count, elementBytesMin, remaining());
        }
        return count;
    }

    /**
     * Reads a tagged-field section and skips every field in it. Each field costs at least two bytes (tag and
     * size), so the loop is bounded by the frame.
     */
    default void skipTaggedFields() {
        int count = readUnsignedVarint();
        if (count < 0 || count > remaining() / 2) {
            throw DecodeException.format("tagged field count %d exceeds what %d bytes can hold", count, remaining());
        }
        for (int i = 0; i < count; i++) {
            readUnsignedVarint();
            int size = readUnsignedVarint();
            if (size < 0 || size > remaining()) {
                throw DecodeException.format("tagged field of %d bytes exceeds the %d remaining", size, remaining());
            }
            skip(size);
        }
    }
}
