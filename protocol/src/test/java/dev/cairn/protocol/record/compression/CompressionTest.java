package dev.cairn.protocol.record.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cairn.protocol.wire.DecodeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each codec interoperates with kafka-clients 4.4's own compression streams in both directions (the formats in
 * kafka-protocol.md A.2 and Kafka's {@code org.apache.kafka.common.compress}), decompression is bounded, and
 * corrupt data raises DecodeException only.
 */
class CompressionTest {
    private static final int PAYLOAD_BYTES = 300_000;

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void kafkaDecompressesWhatWeCompress(CompressionType compressionType) throws IOException {
        byte[] payload = mixedPayload(PAYLOAD_BYTES, 1);
        ByteBuffer compressed = Compression.compress(compressionType, ByteBuffer.wrap(payload));
        assertEquals(0, ByteBuffer.wrap(payload).position());
        byte[] roundTrip;
        try (InputStream in = kafkaCompression(compressionType).wrapForInput(compressed.duplicate(),
                RecordBatch.MAGIC_VALUE_V2, BufferSupplier.NO_CACHING)) {
            roundTrip = in.readAllBytes();
        }
        assertEquals(ByteBuffer.wrap(payload), ByteBuffer.wrap(roundTrip));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void weDecompressWhatKafkaCompresses(CompressionType compressionType) throws IOException {
        byte[] payload = mixedPayload(PAYLOAD_BYTES, 2);
        ByteBuffer compressed = kafkaCompress(compressionType, payload);
        ByteBuffer decompressed = Compression.decompress(compressionType, compressed, PAYLOAD_BYTES);
        assertEquals(ByteBuffer.wrap(payload), decompressed);
    }

    @Test
    void lz4OutputIsAStandardFrame() {
        ByteBuffer compressed = Compression.compress(CompressionType.LZ4, ByteBuffer.wrap(new byte[100]));
        // LZ4 frame magic number 0x184D2204, little-endian (lz4 frame format spec, "General Structure").
        assertEquals(0x184D2204, compressed.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt());
    }

    @Test
    void lz4FrameDescriptorMatchesKafkas() throws IOException {
        byte[] payload = mixedPayload(1000, 5);
        ByteBuffer ours = Compression.compress(CompressionType.LZ4, ByteBuffer.wrap(payload));
        ByteBuffer kafkas = kafkaCompress(CompressionType.LZ4, payload);
        // Magic (4 bytes), FLG, BD and the header checksum: independent blocks, no checksums, 64 KiB blocks.
        int frameHeaderBytes = 7;
        assertEquals(kafkas.duplicate().limit(frameHeaderBytes), ours.duplicate().limit(frameHeaderBytes));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void roundTripsEmptyAndTinyInputs(CompressionType compressionType) {
        for (int size : new int[] {0, 1, 2, 17}) {
            byte[] payload = mixedPayload(size, size);
            ByteBuffer compressed = Compression.compress(compressionType, ByteBuffer.wrap(payload));
            assertEquals(ByteBuffer.wrap(payload), Compression.decompress(compressionType, compressed, size));
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void decompressionStopsAtTheLimit(CompressionType compressionType) {
        int inflatedBytes = 4 * 1024 * 1024;
        ByteBuffer bomb = Compression.compress(compressionType, ByteBuffer.allocate(inflatedBytes));
        DecompressedSizeExceededException e = assertThrows(DecompressedSizeExceededException.class,
                () -> Compression.decompress(compressionType, bomb, inflatedBytes - 1));
        assertEquals(inflatedBytes - 1, e.decompressedBytesMax());
        assertEquals(inflatedBytes, Compression.decompress(compressionType, bomb, inflatedBytes).remaining());
    }

    @Test
    void snappyChunkClaimingAHugeLengthIsRefusedWithoutAllocatingIt() {
        ByteBuffer header = Compression.compress(CompressionType.SNAPPY, ByteBuffer.allocate(0));
        ByteBuffer forged = ByteBuffer.allocate(header.remaining() + 4 + 6);
        forged.put(header.duplicate());
        // One chunk of 6 bytes: a raw snappy preamble declaring 2^31 - 1 uncompressed bytes, then one byte.
        forged.putInt(6).put(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0}).flip();
        // With the limit out of the way, only the plausibility check stands between this and a 2 GiB array
        // (the test JVM has -Xmx2g, so an attempt would fail the test with an OutOfMemoryError).
        assertThrows(DecodeException.class,
                () -> Compression.decompress(CompressionType.SNAPPY, forged, Integer.MAX_VALUE - 8));
        // Under a small limit the same chunk is refused by whichever check comes first; both are bounded.
        RuntimeException refused = assertThrows(RuntimeException.class,
                () -> Compression.decompress(CompressionType.SNAPPY, forged, 1 << 20));
        assertTrue(refused instanceof DecodeException || refused instanceof DecompressedSizeExceededException);
    }

    @Test
    void snappyAcceptsConcatenatedStreamsAsXerialDoes() {
        ByteBuffer first = Compression.compress(CompressionType.SNAPPY, ByteBuffer.wrap(new byte[] {1, 2, 3}));
        ByteBuffer second = Compression.compress(CompressionType.SNAPPY, ByteBuffer.wrap(new byte[] {4, 5}));
        ByteBuffer both = ByteBuffer.allocate(first.remaining() + second.remaining());
        both.put(first).put(second).flip();
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}),
                Compression.decompress(CompressionType.SNAPPY, both, 100));
    }

    /** librdkafka and franz-go write one raw snappy block with no xerial framing; Kafka reads it, so must we. */
    @Test
    void snappyAcceptsARawBlockWithoutXerialFraming() throws IOException {
        byte[] payload = mixedPayload(PAYLOAD_BYTES, 5);
        ByteBuffer raw = ByteBuffer.wrap(org.xerial.snappy.Snappy.compress(payload));
        assertEquals(ByteBuffer.wrap(payload), Compression.decompress(CompressionType.SNAPPY, raw, PAYLOAD_BYTES));
        assertThrows(DecompressedSizeExceededException.class,
                () -> Compression.decompress(CompressionType.SNAPPY, raw, PAYLOAD_BYTES - 1));
    }

    @Test
    void snappyRawBlockThatIsCorruptIsADecodeError() throws IOException {
        byte[] raw = org.xerial.snappy.Snappy.compress(mixedPayload(20_000, 6));
        ByteBuffer cut = ByteBuffer.wrap(raw, 0, raw.length / 2);
        assertThrows(DecodeException.class, () -> Compression.decompress(CompressionType.SNAPPY, cut, 1 << 20));
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void truncatedStreamsRaiseDecodeException(CompressionType compressionType) {
        byte[] payload = mixedPayload(200_000, 3);
        ByteBuffer compressed = Compression.compress(compressionType, ByteBuffer.wrap(payload));
        int prefixes = 0;
        for (int cut = 0; cut < compressed.remaining(); cut += 1 + cut / 8) {
            ByteBuffer truncated = compressed.duplicate();
            truncated.limit(cut);
            try {
                ByteBuffer prefix = Compression.decompress(compressionType, truncated, 1 << 20);
                // xerial's snappy framing has no end marker: a cut between chunks is a shorter valid stream. It
                // still yields a strict prefix, so the record parser finds the records missing.
                assertEquals(CompressionType.SNAPPY, compressionType, "cut at " + cut + " decoded");
                assertTrue(prefix.remaining() < payload.length);
                assertEquals(ByteBuffer.wrap(payload, 0, prefix.remaining()), prefix);
                prefixes++;
            } catch (DecodeException expected) {
                // The codec noticed the truncation.
            }
        }
        assertTrue(prefixes < 10, "snappy decoded " + prefixes + " cuts; only chunk boundaries should");
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void corruptStreamsRaiseDecodeExceptionOnly(CompressionType compressionType) {
        ByteBuffer original = Compression.compress(compressionType, ByteBuffer.wrap(mixedPayload(20_000, 4)));
        Random random = new Random(1234 + compressionType.id());
        int decodeFailures = 0;
        for (int trial = 0; trial < 400; trial++) {
            ByteBuffer corrupt = ByteBuffer.allocate(original.remaining());
            corrupt.put(original.duplicate()).flip();
            corrupt.put(random.nextInt(corrupt.limit()), (byte) random.nextInt(256));
            try {
                Compression.decompress(compressionType, corrupt, 1 << 20);
            } catch (DecodeException expected) {
                decodeFailures++;
            } catch (DecompressedSizeExceededException expected) {
                // A corrupted length field may claim more than the limit; refusing it is the bound working.
            } catch (RuntimeException e) {
                fail(compressionType + " trial " + trial + " raised " + e, e);
            }
        }
        // Codecs without checksums may decode some corruptions into different bytes; most must still fail.
        assertTrue(decodeFailures > 0, compressionType + " detected no corruption at all");
    }

    @Test
    void garbageIsADecodeErrorForEveryCodec() {
        ByteBuffer garbage = ByteBuffer.wrap(mixedPayload(1000, 9));
        for (CompressionType compressionType : new CompressionType[] {CompressionType.GZIP, CompressionType.SNAPPY,
            CompressionType.LZ4, CompressionType.ZSTD}) {
            assertThrows(DecodeException.class, () -> Compression.decompress(compressionType, garbage, 1 << 20),
                    compressionType::toString);
        }
    }

    @Test
    void codecIdsMatchKafka() {
        for (CompressionType compressionType : CompressionType.values()) {
            assertEquals(compressionType.id(),
                    org.apache.kafka.common.record.internal.CompressionType.forName(compressionType.kafkaName()).id);
            assertEquals(compressionType, CompressionType.forId(compressionType.id()));
            assertTrue(Compression.isAvailable(compressionType));
        }
        for (int id : new int[] {-1, 5, 6, 7}) {
            assertThrows(DecodeException.class, () -> CompressionType.forId(id));
        }
    }

    private static org.apache.kafka.common.compress.Compression kafkaCompression(CompressionType compressionType) {
        return compressionType == CompressionType.NONE ? org.apache.kafka.common.compress.Compression.NONE
                : org.apache.kafka.common.compress.Compression.of(compressionType.kafkaName()).build();
    }

    private static ByteBuffer kafkaCompress(CompressionType compressionType, byte[] payload) throws IOException {
        ByteBufferOutputStream out = new ByteBufferOutputStream(1024);
        try (OutputStream compressing = kafkaCompression(compressionType).wrapForOutput(out,
                RecordBatch.MAGIC_VALUE_V2)) {
            compressing.write(payload);
        }
        return out.buffer().flip();
    }

    /** Half random bytes, half repeated text: compressible enough to exercise back-references, not trivially. */
    private static byte[] mixedPayload(int size, long seed) {
        byte[] bytes = new byte[size];
        Random random = new Random(seed);
        byte[] text = "the quick brown fox jumps over the lazy dog ".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < size; i++) {
            bytes[i] = (i / 512) % 2 == 0 ? (byte) random.nextInt(256) : text[i % text.length];
        }
        return bytes;
    }
}
