package dev.cairn.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.api.Test;

/**
 * The protocol primitives (Kafka protocol guide, "Protocol Primitive Types"; KIP-482 for compact encodings and
 * tagged fields), with varints checked byte for byte against kafka-clients' {@code ByteUtils}.
 */
class WirePrimitivesTest {
    private static final int[] INT_EDGES = {0, 1, -1, 63, 64, -64, -65, 127, 128, 16_383, 16_384, (1 << 21) - 1,
        1 << 21, (1 << 28) - 1, 1 << 28, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1};
    private static final long[] LONG_EDGES = {0L, 1L, -1L, 127L, 128L, Integer.MAX_VALUE, Integer.MIN_VALUE,
        (1L << 35), -(1L << 35), (1L << 56) - 1, 1L << 56, (1L << 63) - 1, Long.MAX_VALUE, Long.MIN_VALUE};

    private static byte[] written(java.util.function.Consumer<Writable> writes, int capacity) {
        ByteBuffer buffer = ByteBuffer.allocate(capacity);
        writes.accept(new ByteBufferWritable(buffer));
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    private static Readable readable(int... bytes) {
        byte[] array = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            array[i] = (byte) bytes[i];
        }
        return new ByteBufferReadable(ByteBuffer.wrap(array));
    }

    @Test
    void varintsMatchKafkaAtEdgeValues() {
        for (int value : INT_EDGES) {
            ByteBuffer kafkaSigned = ByteBuffer.allocate(Varints.VARINT_BYTES_MAX);
            ByteUtils.writeVarint(value, kafkaSigned);
            byte[] ours = written(out -> out.writeVarint(value), Varints.VARINT_BYTES_MAX);
            assertArrayEquals(Arrays.copyOf(kafkaSigned.array(), kafkaSigned.position()), ours, "varint " + value);
            assertEquals(ours.length, Varints.sizeOfVarint(value));
            assertEquals(value, new ByteBufferReadable(ByteBuffer.wrap(ours)).readVarint());

            ByteBuffer kafkaUnsigned = ByteBuffer.allocate(Varints.VARINT_BYTES_MAX);
            ByteUtils.writeUnsignedVarint(value, kafkaUnsigned);
            byte[] oursUnsigned = written(out -> out.writeUnsignedVarint(value), Varints.VARINT_BYTES_MAX);
            assertArrayEquals(Arrays.copyOf(kafkaUnsigned.array(), kafkaUnsigned.position()), oursUnsigned);
            assertEquals(oursUnsigned.length, Varints.sizeOfUnsignedVarint(value));
            assertEquals(value, new ByteBufferReadable(ByteBuffer.wrap(oursUnsigned)).readUnsignedVarint());
        }
        for (long value : LONG_EDGES) {
            ByteBuffer kafka = ByteBuffer.allocate(Varints.VARLONG_BYTES_MAX);
            ByteUtils.writeVarlong(value, kafka);
            byte[] ours = written(out -> out.writeVarlong(value), Varints.VARLONG_BYTES_MAX);
            assertArrayEquals(Arrays.copyOf(kafka.array(), kafka.position()), ours, "varlong " + value);
            assertEquals(ours.length, Varints.sizeOfVarlong(value));
            assertEquals(value, new ByteBufferReadable(ByteBuffer.wrap(ours)).readVarlong());
        }
    }

    @Test
    void malformedVarintsAreDecodeExceptions() {
        assertThrows(DecodeException.class, () -> readable(0x80, 0x80, 0x80, 0x80, 0x80, 0x01).readUnsignedVarint());
        assertThrows(DecodeException.class, () -> readable(0x80, 0x80).readVarint());
        assertThrows(DecodeException.class, () -> readable().readVarlong());
        assertThrows(DecodeException.class, () -> readable(0xff, 0xff, 0xff, 0xff, 0x7f).readUnsignedVarint());
    }

    @Test
    void fixedWidthReadsPastTheEndAreDecodeExceptions() {
        assertThrows(DecodeException.class, () -> readable(1).readShort());
        assertThrows(DecodeException.class, () -> readable(1, 2, 3).readInt());
        assertThrows(DecodeException.class, () -> readable(1, 2, 3, 4, 5, 6, 7).readLong());
        assertThrows(DecodeException.class, () -> readable(1, 2, 3, 4, 5, 6, 7, 8).readUuid());
        assertThrows(DecodeException.class, () -> readable(1, 2).readBytes(3));
        assertThrows(DecodeException.class, () -> readable(1, 2).readSlice(-1));
        assertThrows(DecodeException.class, () -> readable(1, 2).skip(3));
    }

    @Test
    void stringsInClassicAndCompactEncodings() {
        assertArrayEquals(new byte[] {0, 3, 'a', 'b', 'c'}, written(out -> out.writeString("abc", false), 8));
        assertArrayEquals(new byte[] {(byte) 0xff, (byte) 0xff}, written(out -> out.writeString(null, false), 8));
        assertArrayEquals(new byte[] {4, 'a', 'b', 'c'}, written(out -> out.writeString("abc", true), 8));
        assertArrayEquals(new byte[] {1}, written(out -> out.writeString("", true), 8));
        assertArrayEquals(new byte[] {0}, written(out -> out.writeString(null, true), 8));

        assertNull(readable(0).readString(true, true));
        assertNull(readable(0xff, 0xff).readString(false, true));
        assertEquals("", readable(1).readString(true, false));
        assertEquals("abc", readable(0, 3, 'a', 'b', 'c').readString(false, false));
        assertThrows(DecodeException.class, () -> readable(0).readString(true, false));
        assertThrows(DecodeException.class, () -> readable(0xff, 0xff).readString(false, false));
        assertThrows(DecodeException.class, () -> readable(0xff, 0xfe).readString(false, true));
        assertThrows(DecodeException.class, () -> readable(0, 4, 'a', 'b', 'c').readString(false, false));
        assertThrows(DecodeException.class, () -> readable(5, 'a', 'b', 'c').readString(true, false));
    }

    @Test
    void unicodeStringsRoundTripAndSizeWithoutEncoding() {
        String[] samples = {"", "ascii", "é", "ß߿", "中文", "\uffff", "🙂𝄞", "mixed é中🙂 text", "\u0000"};
        for (String sample : samples) {
            byte[] utf8 = sample.getBytes(StandardCharsets.UTF_8);
            assertEquals(utf8.length, Utf8.encodedLength(sample), sample);
            for (boolean compact : new boolean[] {true, false}) {
                byte[] encoded = written(out -> out.writeString(sample, compact), 64);
                assertEquals(sample, new ByteBufferReadable(ByteBuffer.wrap(encoded)).readString(compact, false));
            }
        }
        // A lone surrogate encodes as '?', one byte, exactly as String.getBytes does.
        assertEquals("a\ud800b".getBytes(StandardCharsets.UTF_8).length, Utf8.encodedLength("a\ud800b"));
        assertEquals("\udc00".getBytes(StandardCharsets.UTF_8).length, Utf8.encodedLength("\udc00"));
    }

    @Test
    void stringsLongerThanKafkaAllowsAreRejected() {
        int length = Readable.STRING_BYTES_MAX + 1;
        ByteBuffer buffer = ByteBuffer.allocate(Varints.VARINT_BYTES_MAX + length);
        Varints.writeUnsignedVarint(buffer, length + 1);
        buffer.position(buffer.position() + length).flip();
        assertThrows(DecodeException.class, () -> new ByteBufferReadable(buffer).readString(true, false));
        String tooLong = "x".repeat(length);
        assertThrows(IllegalArgumentException.class,
            () -> new ByteBufferWritable(ByteBuffer.allocate(2 * length)).writeString(tooLong, true));
    }

    @Test
    void bytesFieldsAndSlicesDoNotCopy() {
        assertArrayEquals(new byte[] {0, 0, 0, 2, 7, 8}, written(out -> out.writeBytesField(new byte[] {7, 8}, false),
            8));
        assertArrayEquals(new byte[] {3, 7, 8}, written(out -> out.writeBytesField(new byte[] {7, 8}, true), 8));
        assertNull(readable(0xff, 0xff, 0xff, 0xff).readBytesField(false, true));
        assertThrows(DecodeException.class, () -> readable(0, 0, 0, 3, 1, 2).readBytesField(false, false));
        assertThrows(DecodeException.class, () -> readable(0x80, 0x80, 0x80, 0x80, 0x08).readBytesField(true, true));

        byte[] backing = {9, 1, 2, 3};
        ByteBufferReadable in = new ByteBufferReadable(ByteBuffer.wrap(backing));
        in.readByte();
        ByteBuffer slice = in.readSlice(3);
        backing[2] = 42;
        assertEquals(42, slice.get(1), "a slice shares the frame's bytes");
        assertEquals(0, in.remaining());
    }

    @Test
    void uuidIsMostSignificantLongFirst() {
        UUID uuid = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
        byte[] encoded = written(out -> out.writeUuid(uuid), 16);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, encoded);
        assertEquals(uuid, new ByteBufferReadable(ByteBuffer.wrap(encoded)).readUuid());
    }

    @Test
    void taggedSectionsAreSkippedWithinTheirBounds() {
        // Two fields (tag 0 with 2 bytes, tag 300 with 1 byte), then a trailing byte that must be next.
        Readable in = readable(2, 0, 2, 0xaa, 0xbb, 0xac, 0x02, 1, 0xcc, 0x55);
        in.skipTaggedFields();
        assertEquals(0x55, in.readByte());
        assertThrows(DecodeException.class, () -> readable(3, 0, 0).skipTaggedFields());
        assertThrows(DecodeException.class, () -> readable(1, 0, 5, 1, 2).skipTaggedFields());
        assertArrayEquals(new byte[] {0}, written(Writable::writeEmptyTaggedFields, 1));
    }

    @Test
    void arrayCountsAreCheckedBeforeAllocation() {
        assertEquals(Readable.NULL_LENGTH, readable(0xff, 0xff, 0xff, 0xff).readArrayCount(false, 4));
        assertEquals(Readable.NULL_LENGTH, readable(0).readArrayCount(true, 4));
        assertEquals(2, readable(0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8).readArrayCount(false, 4));
        assertThrows(DecodeException.class, () -> readable(0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8)
            .readArrayCount(false, 4));
        assertThrows(DecodeException.class, () -> readable(0x7f, 0xff, 0xff, 0xff).readArrayCount(false, 1));
        assertThrows(DecodeException.class, () -> readable(0xff, 0xff, 0xff, 0xfe).readArrayCount(false, 1));
        assertThrows(DecodeException.class, () -> readable(0xff, 0xff, 0xff, 0xff, 0x0f).readArrayCount(true, 1));
        assertEquals(Readable.ZERO_BYTE_ELEMENTS_MAX, new ByteBufferReadable(ByteBuffer.allocate(4)
            .putInt(0, Readable.ZERO_BYTE_ELEMENTS_MAX)).readArrayCount(false, 0));
        assertThrows(DecodeException.class, () -> new ByteBufferReadable(ByteBuffer.allocate(4)
            .putInt(0, Readable.ZERO_BYTE_ELEMENTS_MAX + 1)).readArrayCount(false, 0));
    }
}
