package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.KafkaOracle.TestRecord;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Batches built by Cairn's producer-side builder, read back by kafka-clients 4.4 (kafka-protocol.md A.2). */
class RecordBatchBuilderTest {
    private static final long FIRST_TIMESTAMP_MS = 1_700_000_000_000L;
    private static final long PRODUCER_ID = 31_337L;
    private static final short PRODUCER_EPOCH = 2;
    private static final int BASE_SEQUENCE = 500;

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void kafkaReadsOurBatchWithEqualRecords(CompressionType compressionType) {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 41, 1000 + compressionType.id());
        RecordBatchBuilder builder = new RecordBatchBuilder(compressionType)
                .producerState(PRODUCER_ID, PRODUCER_EPOCH, BASE_SEQUENCE);
        for (TestRecord record : records) {
            builder.append(record.timestampMs(), record.key(), record.value(), record.headers());
        }
        ByteBuffer buffer = builder.build();

        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertEquals(buffer.remaining(), kafka.sizeInBytes());
        assertEquals(compressionType.kafkaName(), kafka.compressionType().name);
        assertEquals(TimestampType.CREATE_TIME, kafka.timestampType());
        assertEquals(0L, kafka.baseOffset());
        assertEquals(records.size() - 1, kafka.lastOffset());
        assertEquals(RecordBatchDescriptor.NO_PARTITION_LEADER_EPOCH, kafka.partitionLeaderEpoch());
        assertEquals(records.stream().mapToLong(TestRecord::timestampMs).max().orElseThrow(), kafka.maxTimestamp());
        assertEquals(PRODUCER_ID, kafka.producerId());
        assertEquals(PRODUCER_EPOCH, kafka.producerEpoch());
        assertEquals(BASE_SEQUENCE, kafka.baseSequence());
        assertEquals(BASE_SEQUENCE + records.size() - 1, kafka.lastSequence());
        assertFalse(kafka.isTransactional());
        assertFalse(kafka.isControlBatch());
        assertEquals(records.size(), kafka.countOrNull());

        Iterator<Record> kafkaRecords = kafka.iterator();
        for (int i = 0; i < records.size(); i++) {
            TestRecord expected = records.get(i);
            Record actual = kafkaRecords.next();
            assertEquals(i, actual.offset());
            assertEquals(expected.timestampMs(), actual.timestamp());
            assertArrayEquals(expected.key(), RecordCursorTest.toArray(actual.key()));
            assertArrayEquals(expected.value(), RecordCursorTest.toArray(actual.value()));
            Header[] headers = actual.headers();
            assertEquals(expected.headers().length, headers.length);
            for (int h = 0; h < headers.length; h++) {
                assertEquals(expected.headers()[h].key(), headers[h].key());
                assertArrayEquals(expected.headers()[h].value(), headers[h].value());
            }
        }
        assertFalse(kafkaRecords.hasNext());
        // Byte-identical framing with kafka-clients for the uncompressed case: same records, same bytes.
        if (compressionType == CompressionType.NONE) {
            assertEquals(KafkaOracle.kafkaBatch(compressionType,
                    new KafkaOracle.Producer(PRODUCER_ID, PRODUCER_EPOCH, BASE_SEQUENCE), records), buffer);
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void ourBatchPassesBrokerValidation(CompressionType compressionType) {
        RecordBatchBuilder builder = new RecordBatchBuilder(compressionType).producerState(PRODUCER_ID,
                PRODUCER_EPOCH, 0);
        builder.append(FIRST_TIMESTAMP_MS, (byte[]) null, null);
        builder.append(FIRST_TIMESTAMP_MS + 1, utf8("k"), utf8("v"), new RecordHeader("h", null));
        BatchValidationResult result = ProduceBatchValidator.validate(builder.build(), (short) 9,
                BatchValidationConfig.DEFAULTS, FIRST_TIMESTAMP_MS);
        assertEquals(ErrorCode.NONE, result.errorCode(), result.errorMessage());
        assertEquals(2, result.recordsCount());
        assertEquals(FIRST_TIMESTAMP_MS + 1, result.maxTimestampMs());
        assertEquals(1, result.offsetDeltaOfMaxTimestamp());
    }

    @Test
    void uncompressedEstimateIsExactAndHasRoomForKeepsUnderTheLimit() {
        int batchBytesMax = 16 * 1024;
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        byte[] value = new byte[100];
        int appended = 0;
        while (builder.hasRoomFor(FIRST_TIMESTAMP_MS, null, value, new RecordHeader[0], batchBytesMax)) {
            builder.append(FIRST_TIMESTAMP_MS, null, value);
            appended++;
            assertEquals(builder.uncompressedSizeInBytes(), builder.estimatedSizeInBytes());
        }
        ByteBuffer batch = builder.build();
        assertEquals(builder.estimatedSizeInBytes(), batch.remaining());
        assertTrue(batch.remaining() <= batchBytesMax);
        int recordBytes = RecordBatchBuilder.recordSizeInBytes(0, appended, null, ByteBuffer.wrap(value));
        assertTrue(batch.remaining() + recordBytes > batchBytesMax, "stopped only when the next would not fit");
        assertEquals(appended, RecordBatch.of(batch).recordsCount());
    }

    @Test
    void firstRecordAlwaysFitsSoAnOversizedRecordStillMakesABatch() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        assertTrue(builder.hasRoomFor(FIRST_TIMESTAMP_MS, null, new byte[1000], new RecordHeader[0], 100));
        builder.append(FIRST_TIMESTAMP_MS, null, new byte[1000]);
        assertFalse(builder.hasRoomFor(FIRST_TIMESTAMP_MS, null, new byte[1], new RecordHeader[0], 100));
    }

    @Test
    void compressedEstimateScalesByTheGivenRatio() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.ZSTD).estimatedCompressionRatio(0.5);
        builder.append(FIRST_TIMESTAMP_MS, null, new byte[10_000]);
        int recordsBytes = builder.uncompressedSizeInBytes() - RecordBatchDescriptor.HEADER_BYTES;
        assertEquals(RecordBatchDescriptor.HEADER_BYTES + (recordsBytes + 1) / 2, builder.estimatedSizeInBytes());
        assertTrue(builder.build().remaining() < builder.estimatedSizeInBytes(), "zeros compress below 0.5");
        assertThrows(IllegalArgumentException.class, () -> builder.estimatedCompressionRatio(0));
    }

    @Test
    void byteBufferArgumentsAreNotConsumed() {
        ByteBuffer key = utf8Buffer("key");
        ByteBuffer value = utf8Buffer("value");
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        builder.append(FIRST_TIMESTAMP_MS, key, value);
        assertEquals(0, key.position());
        assertEquals(0, value.position());
        RecordCursor cursor = RecordBatch.of(builder.build()).records();
        assertTrue(cursor.next());
        assertEquals(key, cursor.key());
        assertEquals(value, cursor.value());
    }

    @Test
    void emptyBatchCannotBeBuiltAndBuildCanRepeat() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.GZIP);
        assertThrows(IllegalStateException.class, builder::build);
        builder.append(FIRST_TIMESTAMP_MS, utf8("k"), utf8("v"));
        assertEquals(builder.build(), builder.build());
        builder.append(FIRST_TIMESTAMP_MS, utf8("k2"), utf8("v2"));
        assertEquals(2, RecordBatch.of(builder.build()).recordsCount());
    }

    @Test
    void growsPastTheInitialBufferForLargeRecords() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        byte[] big = new byte[100_000];
        big[99_999] = 7;
        builder.append(FIRST_TIMESTAMP_MS, null, big);
        builder.append(FIRST_TIMESTAMP_MS, null, big);
        RecordCursor cursor = RecordBatch.of(builder.build()).records();
        for (int i = 0; i < 2; i++) {
            assertTrue(cursor.next());
            assertArrayEquals(big, RecordCursorTest.toArray(cursor.value()));
        }
        assertFalse(cursor.next());
    }

    @Test
    void aPresizedBufferBuildsTheSameBytesAndStillGrows() {
        byte[] value = new byte[3_000];
        value[2_999] = 9;
        for (int initialBytes : new int[] {0, 1, 16_384}) {
            RecordBatchBuilder presized = new RecordBatchBuilder(CompressionType.NONE, initialBytes);
            RecordBatchBuilder grown = new RecordBatchBuilder(CompressionType.NONE);
            for (int i = 0; i < 10; i++) {
                presized.append(FIRST_TIMESTAMP_MS + i, utf8("k" + i), value);
                grown.append(FIRST_TIMESTAMP_MS + i, utf8("k" + i), value);
            }
            assertEquals(grown.build(), presized.build(), "initial buffer of " + initialBytes + " bytes");
        }
        assertThrows(IllegalArgumentException.class, () -> new RecordBatchBuilder(CompressionType.NONE, -1));
    }

    @Test
    void recordHeadersCompareTheirValueBytes() {
        assertEquals(new RecordHeader("k", utf8("v")), new RecordHeader("k", utf8("v")));
        assertEquals(new RecordHeader("k", utf8("v")).hashCode(), new RecordHeader("k", utf8("v")).hashCode());
        assertEquals(new RecordHeader("k", null), new RecordHeader("k", null));
        assertFalse(new RecordHeader("k", utf8("v")).equals(new RecordHeader("k", null)));
        assertThrows(NullPointerException.class, () -> new RecordHeader(null, utf8("v")));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer utf8Buffer(String text) {
        return ByteBuffer.wrap(utf8(text));
    }
}
