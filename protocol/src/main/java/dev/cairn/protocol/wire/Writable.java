package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * Writes Kafka protocol primitives. Implementations supply the fixed-width writes; the encodings built on them
 * (varints, strings, compact lengths, tagged sections) are shared default methods so every sink encodes
 * identically. The caller sizes the output first, so a write past the end is a bug, not an input error.
 */
public interface Writable {
    void writeByte(byte value);

    void writeShort(short value);

    void writeInt(int value);

    void writeLong(long value);

    void writeDouble(double value);

    void writeBytes(byte[] source, int offset, int length);

    /** Writes the source's remaining bytes without moving its position. */
    void writeBytes(ByteBuffer source);

    /**
     * Writes a records payload's bytes (its size prefix is written by the caller from
     * {@link RecordsPayload#sizeInBytes()}). A network sink overrides this to pass file-backed payloads on as
     * zero-copy regions instead of copying them.
     */
    default void writeRecords(RecordsPayload payload) {
        payload.writeTo(this);
    }

    default void writeBytes(byte[] source) {
        writeBytes(source, 0, source.length);
    }

    default void writeBoolean(boolean value) {
        writeByte(value ? (byte) 1 : (byte) 0);
    }

    default void writeUnsignedShort(int value) {
        writeShort((short) value);
    }

    default void writeUuid(UUID value) {
        writeLong(value.getMostSignificantBits());
        writeLong(value.getLeastSignificantBits());
    }

    default void writeUnsignedVarint(int value) {
        int remainingBits = value;
        while ((remainingBits & 0xffffff80) != 0) {
            writeByte((byte) ((remainingBits & 0x7f) | 0x80));
            remainingBits >>>= 7;
        }
        writeByte((byte) remainingBits);
    }

    default void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    default void writeVarlong(long value) {
        long remainingBits = (value << 1) ^ (value >> 63);
        while ((remainingBits & 0xffffffffffffff80L) != 0L) {
            writeByte((byte) ((remainingBits & 0x7f) | 0x80));
            remainingBits >>>= 7;
        }
        writeByte((byte) remainingBits);
    }

    /** Writes a length in the compact (stored plus one, 0 = null) or the classic encoding of the given width. */
    default void writeLength(int length, boolean compact, boolean int16) {
        if (compact) {
            writeUnsignedVarint(length + 1);
        } else if (int16) {
            writeShort((short) length);
        } else {
            writeInt(length);
        }
    }

    /** Writes a string, or null, with a compact or int16 length. */
    default void writeString(String value, boolean compact) {
        if (value == null) {
            writeLength(Readable.NULL_LENGTH, compact, true);
            return;
        }
        byte[] utf8 = Utf8.encode(value);
        if (utf8.length > Readable.STRING_BYTES_MAX) {
            throw new IllegalArgumentException("string of " + utf8.length + " bytes cannot be serialised");
        }
        writeLength(utf8.length, compact, true);
        writeBytes(utf8);
    }

    /** Writes a byte array, or null, with a compact or int32 length. */
    default void writeBytesField(byte[] value, boolean compact) {
        if (value == null) {
            writeLength(Readable.NULL_LENGTH, compact, false);
            return;
        }
        writeLength(value.length, compact, false);
        writeBytes(value);
    }

    /** Writes a tagged-field section with no fields. */
    default void writeEmptyTaggedFields() {
        writeUnsignedVarint(0);
    }
}
