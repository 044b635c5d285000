package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.KafkaOracle.TestRecord;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cairn.protocol.record.KafkaOracle.Producer;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.record.compression.DecompressedSizeExceededException;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reads batches that kafka-clients 4.4 built and checks every field against what went in and against what
 * kafka-clients itself reads (kafka-protocol.md A.2, record layout; Kafka DefaultRecord/DefaultRecordBatch).
 * Then feeds malformed input and requires DecodeException and nothing else.
 */
class RecordCursorTest {
    private static final long FIRST_TIMESTAMP_MS = 1_700_000_000_000L;
    private static final Producer IDEMPOTENT = new Producer(4711L, (short) 3, 1234);

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void readsKafkaBuiltBatchFieldForField(CompressionType compressionType) {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 57, compressionType.id());
        ByteBuffer buffer = KafkaOracle.kafkaBatch(compressionType, IDEMPOTENT, records);
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(buffer);
        RecordBatch batch = RecordBatch.of(buffer);

        assertTrue(batch.isChecksumValid());
        assertEquals(kafka.checksum(), batch.checksum());
        assertEquals(compressionType, batch.compressionType());
        assertEquals(kafka.sizeInBytes(), batch.sizeInBytes());
        assertEquals(kafka.baseOffset(), batch.baseOffset());
        assertEquals(kafka.lastOffset(), batch.lastOffset());
        assertEquals(kafka.partitionLeaderEpoch(), batch.partitionLeaderEpoch());
        assertEquals(kafka.magic(), batch.magic());
        assertEquals(records.get(0).timestampMs(), batch.baseTimestamp());
        assertEquals(kafka.maxTimestamp(), batch.maxTimestamp());
        assertEquals(IDEMPOTENT.producerId(), batch.producerId());
        assertEquals(IDEMPOTENT.producerEpoch(), batch.producerEpoch());
        assertEquals(IDEMPOTENT.baseSequence(), batch.baseSequence());
        assertEquals(kafka.lastSequence(), batch.lastSequence());
        assertEquals(records.size(), batch.recordsCount());
        assertFalse(batch.isTransactional());
        assertFalse(batch.isControl());
        assertFalse(batch.isLogAppendTime());

        assertRecordsEqual(records, kafka, batch.records());
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void readsKafkaBuiltBatchWithoutProducerId(CompressionType compressionType) {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 5, 99);
        ByteBuffer buffer = KafkaOracle.kafkaBatch(compressionType, Producer.NONE, records);
        RecordBatch batch = RecordBatch.of(buffer);
        assertFalse(batch.hasProducerId());
        assertEquals(RecordBatchDescriptor.NO_SEQUENCE, batch.baseSequence());
        assertRecordsEqual(records, KafkaOracle.onlyKafkaBatch(buffer), batch.records());
    }

    @Test
    void uncompressedSlicesShareTheBatchBuffer() {
        List<TestRecord> records = List.of(new TestRecord(FIRST_TIMESTAMP_MS, bytes("k"), bytes("v")));
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE, records);
        RecordCursor cursor = RecordBatch.of(buffer).records();
        assertTrue(cursor.next());
        // Zero copy: the cursor reads the batch's own backing array, and offsets index into it.
        assertSame(buffer.array(), cursor.recordsBuffer().array());
        assertEquals('v', buffer.get(cursor.valueOffset()));
        assertEquals('k', buffer.get(cursor.keyOffset()));
        assertFalse(cursor.next());
        assertFalse(cursor.next());
    }

    @Test
    void readsABatchAtANonZeroStartWithoutMovingTheBuffer() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 9, 5);
        ByteBuffer batchBytes = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE, records);
        ByteBuffer buffer = ByteBuffer.allocate(batchBytes.remaining() + 100);
        buffer.position(37);
        buffer.put(batchBytes.duplicate());
        buffer.position(11);
        RecordBatch batch = new RecordBatch().wrap(buffer, 37);
        assertRecordsEqual(records, KafkaOracle.onlyKafkaBatch(batchBytes), batch.records());
        assertEquals(11, buffer.position());
    }

    @Test
    void cursorMustBeResetBeforeUse() {
        assertThrows(IllegalStateException.class, () -> new RecordCursor().next());
    }

    @Test
    void cursorIsReusableAcrossBatches() {
        RecordCursor cursor = new RecordCursor();
        for (CompressionType compressionType : CompressionType.values()) {
            List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 13, 7);
            ByteBuffer buffer = KafkaOracle.kafkaBatch(compressionType, IDEMPOTENT, records);
            assertRecordsEqual(records, KafkaOracle.onlyKafkaBatch(buffer), cursor.reset(RecordBatch.of(buffer)));
        }
    }

    @Test
    void compressedBatchOverTheLimitIsRefusedNotInflated() {
        List<TestRecord> records = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            records.add(new TestRecord(FIRST_TIMESTAMP_MS, null, new byte[10_000]));
        }
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.GZIP, Producer.NONE, records);
        RecordBatch batch = RecordBatch.of(buffer);
        assertTrue(batch.sizeInBytes() < 2_000, "zeros compress well");
        assertThrows(DecompressedSizeExceededException.class, () -> new RecordCursor().reset(batch, 100_000));
        RecordCursor cursor = new RecordCursor().reset(batch, 300_000);
        int count = 0;
        while (cursor.next()) {
            count++;
        }
        assertEquals(20, count);
    }

    // ---- Malformed input: DecodeException only. ----

    @Test
    void everyTruncationOfTheRecordsRaisesDecodeException() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 6, 11);
        ByteBuffer full = KafkaOracle.kafkaBatch(CompressionType.NONE, IDEMPOTENT, records);
        for (int cut = RecordBatchDescriptor.RECORDS_OFFSET; cut < full.remaining(); cut++) {
            ByteBuffer truncated = copyOf(full, cut);
            // Keep the length field consistent so the header wraps and the cursor meets the short records.
            truncated.putInt(RecordBatchDescriptor.LENGTH_OFFSET, cut - RecordBatchDescriptor.LOG_OVERHEAD_BYTES);
            assertDecodeFails(truncated, "cut at " + cut);
        }
    }

    @Test
    void truncatedHeaderOrLengthPastTheEndFailsToWrap() {
        ByteBuffer full = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 3, 1));
        for (int cut = 0; cut < full.remaining(); cut++) {
            ByteBuffer truncated = copyOf(full, cut);
            assertThrows(DecodeException.class, () -> RecordBatch.of(truncated), "cut at " + cut);
        }
        ByteBuffer shortLength = copyOf(full, full.remaining());
        shortLength.putInt(RecordBatchDescriptor.LENGTH_OFFSET, RecordBatchDescriptor.LENGTH_MIN - 1);
        assertThrows(DecodeException.class, () -> RecordBatch.of(shortLength));
    }

    @Test
    void recordsCountDisagreeingWithTheRecordsRaisesDecodeException() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 4, 2));
        for (int count : new int[] {-1, 3, 5, Integer.MAX_VALUE}) {
            ByteBuffer copy = copyOf(buffer, buffer.remaining());
            copy.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, count);
            assertDecodeFails(copy, "count " + count);
        }
    }

    @Test
    void unassignedCodecIdRaisesDecodeException() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 2, 3));
        buffer.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) 5);
        assertThrows(DecodeException.class, () -> RecordBatch.of(buffer).compressionType());
        assertDecodeFails(buffer, "codec 5");
    }

    @Test
    void overlongVarintRaisesDecodeException() {
        ByteBuffer buffer = singleRecordBatch(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
            (byte) 0xff, (byte) 0xff, 0});
        assertDecodeFails(buffer, "six-byte varint", "varint longer than 5 bytes");
    }

    @Test
    void fieldLengthsPastTheRecordRaiseDecodeException() {
        // Lengths are zig-zag varints: 14 encodes 7, 0xc8 0x01 encodes 100, 1 encodes -1, 3 encodes -2.
        // Record: length 7, attributes 0, timestampDelta 0, offsetDelta 0, keyLength 100, then too few bytes.
        assertDecodeFails(singleRecordBatch(new byte[] {14, 0, 0, 0, (byte) 0xc8, 0x01, 1, 0}), "key past end",
                "key needs 100 bytes");
        // A value length of -2 is neither null (-1) nor a length.
        assertDecodeFails(singleRecordBatch(new byte[] {12, 0, 0, 0, 1, 3, 0}), "value length -2",
                "value length -2");
        // A negative header count, and a header with a null key.
        assertDecodeFails(singleRecordBatch(new byte[] {12, 0, 0, 0, 1, 1, 1}), "header count -1",
                "header count -1");
        assertDecodeFails(singleRecordBatch(new byte[] {16, 0, 0, 0, 1, 1, 2, 1, 1}), "null header key",
                "key length -1");
        // A record length larger than what is left in the batch, and a negative record length.
        assertDecodeFails(singleRecordBatch(new byte[] {100, 0, 0, 0, 1, 1, 0}), "record past end",
                "length 50 outside");
        assertDecodeFails(singleRecordBatch(new byte[] {1, 0, 0, 0, 1, 1, 0}), "record length -1",
                "length -1 outside");
        // A record whose fields end before its declared length.
        assertDecodeFails(singleRecordBatch(new byte[] {16, 0, 0, 0, 1, 1, 0, 0, 0}), "slack in record",
                "declares 8 bytes but its fields use 6");
        // Bytes after the last record.
        assertDecodeFails(singleRecordBatch(new byte[] {12, 0, 0, 0, 1, 1, 0, 42}), "trailing byte",
                "1 bytes follow the last of 1 records");
    }

    @Test
    void wellFormedHandWrittenRecordIsRead() {
        // The same hand encoding as the malformed cases, correct this time: proves those fail for their fault.
        ByteBuffer buffer = singleRecordBatch(new byte[] {18, 0, 0, 0, 1, 1, 2, 2, 'h', 1});
        RecordCursor cursor = RecordBatch.of(buffer).records();
        assertTrue(cursor.next());
        assertEquals(-1, cursor.keySize());
        assertNull(cursor.key());
        assertNull(cursor.value());
        assertEquals(1, cursor.headerCount());
        assertEquals("h", cursor.headerKeyString(0));
        assertNull(cursor.headerValue(0));
        assertFalse(cursor.next());
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void randomCorruptionRaisesDecodeExceptionOnly(CompressionType compressionType) {
        ByteBuffer original = KafkaOracle.kafkaBatch(compressionType, IDEMPOTENT,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 12, 21));
        Random random = new Random(0xCA1B + compressionType.id());
        int recordsBytes = original.remaining() - RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
        for (int trial = 0; trial < 1500; trial++) {
            ByteBuffer corrupt = copyOf(original, original.remaining());
            int flips = 1 + random.nextInt(3);
            for (int f = 0; f < flips; f++) {
                // Corrupt the records count or the records (or compressed blob); the CRC is not the cursor's job.
                int position = RecordBatchDescriptor.RECORDS_COUNT_OFFSET + random.nextInt(recordsBytes);
                corrupt.put(position, (byte) random.nextInt(256));
            }
            try {
                RecordCursor cursor = new RecordCursor().reset(RecordBatch.of(corrupt), 1 << 20);
                while (cursor.next()) {
                    cursor.key();
                    cursor.value();
                    for (int h = 0; h < cursor.headerCount(); h++) {
                        cursor.headerKey(h);
                        cursor.headerValue(h);
                    }
                }
            } catch (DecodeException expected) {
                // Malformed input is allowed to fail, but only this way.
            } catch (DecompressedSizeExceededException expected) {
                // A corrupted length inside a compressed stream can claim more than the limit; that is the bound.
                assertTrue(compressionType != CompressionType.NONE);
            } catch (RuntimeException e) {
                fail("trial " + trial + " raised " + e, e);
            }
        }
    }

    // ---- Helpers ----

    static void assertRecordsEqual(List<TestRecord> expected, MutableRecordBatch kafka, RecordCursor cursor) {
        Iterator<Record> kafkaRecords = kafka.iterator();
        for (int i = 0; i < expected.size(); i++) {
            assertTrue(cursor.next(), "record " + i);
            Record kafkaRecord = kafkaRecords.next();
            TestRecord record = expected.get(i);
            assertEquals(i, cursor.recordIndex());
            assertEquals(i, cursor.offsetDelta());
            assertEquals(kafkaRecord.offset(), cursor.offset());
            assertEquals(record.timestampMs(), cursor.timestamp());
            assertEquals(kafkaRecord.timestamp(), cursor.timestamp());
            assertEquals(kafkaRecord.sizeInBytes(), cursor.recordSizeInBytes());
            assertEquals(0, cursor.attributes());
            assertArrayEquals(record.key(), toArray(cursor.key()));
            assertArrayEquals(record.value(), toArray(cursor.value()));
            assertEquals(kafkaRecord.keySize(), cursor.keySize());
            assertEquals(kafkaRecord.valueSize(), cursor.valueSize());
            Header[] kafkaHeaders = kafkaRecord.headers();
            assertEquals(record.headers().length, cursor.headerCount());
            assertEquals(kafkaHeaders.length, cursor.headerCount());
            for (int h = 0; h < cursor.headerCount(); h++) {
                assertEquals(record.headers()[h].key(), cursor.headerKeyString(h));
                assertEquals(kafkaHeaders[h].key(), cursor.headerKeyString(h));
                assertArrayEquals(record.headers()[h].value(), toArray(cursor.headerValue(h)));
                assertArrayEquals(kafkaHeaders[h].value(), toArray(cursor.headerValue(h)));
            }
        }
        assertFalse(cursor.next());
        assertFalse(kafkaRecords.hasNext());
    }

    static byte[] toArray(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    static ByteBuffer copyOf(ByteBuffer buffer, int length) {
        ByteBuffer copy = ByteBuffer.allocate(length);
        ByteBuffer view = buffer.duplicate();
        view.limit(view.position() + length);
        copy.put(view).flip();
        return copy;
    }

    /** A one-record uncompressed batch whose records section is exactly {@code recordBytes}. */
    static ByteBuffer singleRecordBatch(byte[] recordBytes) {
        ByteBuffer header = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                List.of(new TestRecord(FIRST_TIMESTAMP_MS, null, null)));
        ByteBuffer batch = ByteBuffer.allocate(RecordBatchDescriptor.RECORDS_OFFSET + recordBytes.length);
        batch.put(copyOf(header, RecordBatchDescriptor.RECORDS_OFFSET)).put(recordBytes).flip();
        batch.putInt(RecordBatchDescriptor.LENGTH_OFFSET, batch.remaining() - RecordBatchDescriptor.LOG_OVERHEAD_BYTES);
        RecordBatch.of(batch).writeChecksum();
        return batch;
    }

    private static void assertDecodeFails(ByteBuffer buffer, String what, String messageFragment) {
        try {
            RecordCursor cursor = RecordBatch.of(buffer).records();
            while (cursor.next()) {
                cursor.key();
            }
            fail(what + ": no exception");
        } catch (DecodeException expected) {
            assertTrue(expected.getMessage().contains(messageFragment), what + ": " + expected.getMessage());
        }
    }

    private static void assertDecodeFails(ByteBuffer buffer, String what) {
        try {
            RecordCursor cursor = RecordBatch.of(buffer).records();
            while (cursor.next()) {
                cursor.key();
            }
            fail(what + ": no exception");
        } catch (DecodeException expected) {
            assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty(), what);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
