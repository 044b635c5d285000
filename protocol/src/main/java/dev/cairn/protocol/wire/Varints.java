package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;

/**
 * Variable-length integers as Kafka encodes them: unsigned LEB128 varints, and zig-zag signed varints and
 * varlongs (protocol guide, "Protocol Primitive Types"). Reads are bounded: a varint may use at most 5 bytes
 * and a varlong at most 10, and running out of buffer raises {@link DecodeException}.
 */
public final class Varints {
    public static final int VARINT_BYTES_MAX = 5;
    public static final int VARLONG_BYTES_MAX = 10;

    private Varints() {
    }

    public static int readUnsignedVarint(ByteBuffer buffer) {
        int value = 0;
        for (int shift = 0; shift < 7 * VARINT_BYTES_MAX; shift += 7) {
            if (!buffer.hasRemaining()) {
                throw new DecodeException("varint runs past the end of the buffer");
            }
            byte b = buffer.get();
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                if (shift == 28 && (b & 0xf0) != 0) {
                    throw new DecodeException("varint overflows 32 bits");
                }
                return value;
            }
        }
        throw new DecodeException("varint longer than " + VARINT_BYTES_MAX + " bytes");
    }

    public static long readUnsignedVarlong(ByteBuffer buffer) {
        long value = 0;
        for (int shift = 0; shift < 7 * VARLONG_BYTES_MAX; shift += 7) {
            if (!buffer.hasRemaining()) {
                throw new DecodeException("varlong runs past the end of the buffer");
            }
            byte b = buffer.get();
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                if (shift == 63 && (b & 0x7e) != 0) {
                    throw new DecodeException("varlong overflows 64 bits");
                }
                return value;
            }
        }
        throw new DecodeException("varlong longer than " + VARLONG_BYTES_MAX + " bytes");
    }

    public static int readVarint(ByteBuffer buffer) {
        int raw = readUnsignedVarint(buffer);
        return (raw >>> 1) ^ -(raw & 1);
    }

    public static long readVarlong(ByteBuffer buffer) {
        long raw = readUnsignedVarlong(buffer);
        return (raw >>> 1) ^ -(raw & 1);
    }

    public static void writeUnsignedVarint(ByteBuffer buffer, int value) {
        int v = value;
        while ((v & 0xffffff80) != 0) {
            buffer.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    public static void writeUnsignedVarlong(ByteBuffer buffer, long value) {
        long v = value;
        while ((v & 0xffffffffffffff80L) != 0L) {
            buffer.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    public static void writeVarint(ByteBuffer buffer, int value) {
        writeUnsignedVarint(buffer, (value << 1) ^ (value >> 31));
    }

    public static void writeVarlong(ByteBuffer buffer, long value) {
        writeUnsignedVarlong(buffer, (value << 1) ^ (value >> 63));
    }

    public static int sizeOfUnsignedVarint(int value) {
        // Each byte carries 7 bits; 32 - numberOfLeadingZeros is the bit length (at least one byte).
        int bits = 32 - Integer.numberOfLeadingZeros(value);
        return Math.max(1, (bits + 6) / 7);
    }

    public static int sizeOfUnsignedVarlong(long value) {
        int bits = 64 - Long.numberOfLeadingZeros(value);
        return Math.max(1, (bits + 6) / 7);
    }

    public static int sizeOfVarint(int value) {
        return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
    }

    public static int sizeOfVarlong(long value) {
        return sizeOfUnsignedVarlong((value << 1) ^ (value >> 63));
    }
}
