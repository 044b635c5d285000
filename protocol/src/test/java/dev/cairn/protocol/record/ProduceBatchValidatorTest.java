package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One test per broker validation rule of kafka-protocol.md A.2, each asserting the exact error code Kafka
 * returns (ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords, LogValidator.validateBatch and
 * validateRecord, UnifiedLog.append), plus the Cairn-specific decisions documented on ProduceBatchValidator.
 */
class ProduceBatchValidatorTest {
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final short PRODUCE_V9 = 9;
    private static final BatchValidationConfig DEFAULTS = BatchValidationConfig.DEFAULTS;

    @Test
    void validBatchIsAcceptedWithItsSummaryAndTheBufferUntouched() {
        ByteBuffer payload = batch(CompressionType.NONE, 3);
        ByteBuffer before = RecordCursorTest.copyOf(payload, payload.remaining());
        BatchValidationResult result = validate(payload);
        assertEquals(ErrorCode.NONE, result.errorCode(), result.errorMessage());
        assertTrue(result.isValid());
        assertNull(result.errorMessage());
        assertEquals(0, result.batchStart());
        assertEquals(payload.remaining(), result.batchSizeInBytes());
        assertEquals(3, result.recordsCount());
        assertEquals(NOW_MS + 2, result.maxTimestampMs());
        assertEquals(2, result.offsetDeltaOfMaxTimestamp());
        assertEquals(before, payload);
        assertEquals(0, payload.position());
    }

    @Test
    void acceptsABatchAtANonZeroPosition() {
        ByteBuffer batch = batch(CompressionType.NONE, 2);
        ByteBuffer payload = ByteBuffer.allocate(batch.remaining() + 10);
        payload.position(10);
        payload.put(batch).position(10);
        BatchValidationResult result = validate(payload);
        assertEquals(ErrorCode.NONE, result.errorCode(), result.errorMessage());
        assertEquals(10, result.batchStart());
        assertEquals(10, payload.position());
    }

    // ---- Framing: exactly one magic-2 batch per partition (INVALID_RECORD 87). ----

    @Test
    void emptyOrShortPayloadIsInvalidRecord() {
        assertCode(ErrorCode.INVALID_RECORD, validate(ByteBuffer.allocate(0)), "one record batch");
        assertCode(ErrorCode.INVALID_RECORD, validate(RecordCursorTest.copyOf(batch(CompressionType.NONE, 1), 17)),
                "is truncated");
    }

    @Test
    void truncatedBatchIsInvalidRecord() {
        ByteBuffer full = batch(CompressionType.NONE, 2);
        assertCode(ErrorCode.INVALID_RECORD, validate(RecordCursorTest.copyOf(full, full.remaining() - 1)),
                "is truncated");
        ByteBuffer headerOnly = RecordCursorTest.copyOf(full, RecordBatchDescriptor.HEADER_BYTES);
        assertCode(ErrorCode.INVALID_RECORD, validate(headerOnly), "is truncated");
    }

    @Test
    void lengthBelowTheV2MinimumIsCorruptMessage() {
        ByteBuffer payload = batch(CompressionType.NONE, 1);
        payload.putInt(RecordBatchDescriptor.LENGTH_OFFSET, RecordBatchDescriptor.LENGTH_MIN - 1);
        assertCode(ErrorCode.CORRUPT_MESSAGE, validate(payload));
        payload.putInt(RecordBatchDescriptor.LENGTH_OFFSET, -5);
        assertCode(ErrorCode.CORRUPT_MESSAGE, validate(payload));
    }

    @Test
    void magicOtherThanTwoIsInvalidRecord() {
        for (byte magic : new byte[] {0, 1, 3}) {
            ByteBuffer payload = batch(CompressionType.NONE, 1);
            payload.put(RecordBatchDescriptor.MAGIC_OFFSET, magic);
            assertCode(ErrorCode.INVALID_RECORD, validate(payload), "magic " + magic);
        }
    }

    @Test
    void twoBatchesOrTrailingBytesAreInvalidRecord() {
        ByteBuffer one = batch(CompressionType.NONE, 1);
        ByteBuffer two = ByteBuffer.allocate(one.remaining() * 2);
        two.put(one.duplicate()).put(one.duplicate()).flip();
        assertCode(ErrorCode.INVALID_RECORD, validate(two), "bytes follow the first batch");
        ByteBuffer trailing = ByteBuffer.allocate(one.remaining() + 1);
        trailing.put(one.duplicate()).put((byte) 0).flip();
        assertCode(ErrorCode.INVALID_RECORD, validate(trailing), "1 bytes follow the first batch");
    }

    // ---- zstd needs Produce v7+ (UNSUPPORTED_COMPRESSION_TYPE 76). ----

    @Test
    void zstdBelowProduceV7IsUnsupportedCompressionType() {
        ByteBuffer payload = batch(CompressionType.ZSTD, 2);
        assertCode(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                ProduceBatchValidator.validate(payload, (short) 6, DEFAULTS, NOW_MS));
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(payload,
                ProduceBatchValidator.PRODUCE_VERSION_ZSTD_MIN, DEFAULTS, NOW_MS));
        // Kafka checks the codec in ProduceRequest before it looks at the CRC; so does Cairn.
        payload.put(payload.limit() - 1, (byte) (payload.get(payload.limit() - 1) ^ 1));
        assertCode(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                ProduceBatchValidator.validate(payload, (short) 3, DEFAULTS, NOW_MS));
    }

    @Test
    void otherCodecsAreAcceptedFromProduceV3() {
        for (CompressionType compressionType : new CompressionType[] {CompressionType.NONE, CompressionType.GZIP,
            CompressionType.SNAPPY, CompressionType.LZ4}) {
            assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(batch(compressionType, 2),
                    ProduceBatchValidator.PRODUCE_VERSION_MAGIC_V2_MIN, DEFAULTS, NOW_MS));
        }
    }

    // ---- Batch header rules. ----

    @Test
    void nonZeroBaseOffsetIsInvalidRecord() {
        ByteBuffer payload = batch(CompressionType.NONE, 1);
        RecordBatch.of(payload).setBaseOffset(5);
        assertCode(ErrorCode.INVALID_RECORD, validate(payload), "baseOffset must be 0, got 5");
    }

    @Test
    void batchOverMaxMessageBytesIsMessageTooLarge() {
        ByteBuffer payload = batch(CompressionType.NONE, 4);
        int size = payload.remaining();
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(payload, PRODUCE_V9,
                DEFAULTS.withMessageBytesMax(size), NOW_MS));
        assertCode(ErrorCode.MESSAGE_TOO_LARGE, ProduceBatchValidator.validate(payload, PRODUCE_V9,
                DEFAULTS.withMessageBytesMax(size - 1), NOW_MS));
    }

    @Test
    void batchOverTheSegmentSizeIsRecordListTooLarge() {
        ByteBuffer payload = batch(CompressionType.NONE, 4);
        int size = payload.remaining();
        assertCode(ErrorCode.RECORD_LIST_TOO_LARGE, ProduceBatchValidator.validate(payload, PRODUCE_V9,
                config(DEFAULTS.messageBytesMax(), size - 1, false, false), NOW_MS));
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(payload, PRODUCE_V9,
                config(DEFAULTS.messageBytesMax(), size, false, false), NOW_MS));
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void crcMismatchIsCorruptMessage(CompressionType compressionType) {
        ByteBuffer payload = batch(compressionType, 3);
        int position = RecordBatchDescriptor.RECORDS_OFFSET + 1;
        payload.put(position, (byte) (payload.get(position) ^ 0x10));
        assertCode(ErrorCode.CORRUPT_MESSAGE, validate(payload));
    }

    @Test
    void unassignedCodecIdIsUnsupportedCompressionType() {
        ByteBuffer payload = mutate(batch(CompressionType.NONE, 1),
            b -> b.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) 6));
        assertCode(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, validate(payload));
    }

    @Test
    void offsetRangeAndRecordsCountMustAgree() {
        assertCode(ErrorCode.INVALID_RECORD, validate(mutate(batch(CompressionType.NONE, 2),
            b -> b.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, -1))), "invalid offset range");
        assertCode(ErrorCode.INVALID_RECORD, validate(mutate(batch(CompressionType.NONE, 2),
            b -> b.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, Integer.MAX_VALUE))), "disagrees");
        assertCode(ErrorCode.INVALID_RECORD, validate(mutate(batch(CompressionType.NONE, 2),
            b -> b.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, 0))), "invalid records count 0");
        assertCode(ErrorCode.INVALID_RECORD, validate(mutate(batch(CompressionType.NONE, 2),
            b -> b.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, 3))), "disagrees");
        assertCode(ErrorCode.INVALID_RECORD, validate(mutate(batch(CompressionType.NONE, 2),
            b -> b.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, 2))), "disagrees");
    }

    @Test
    void controlBatchFromAClientIsInvalidRecord() {
        ByteBuffer payload = mutate(batch(CompressionType.NONE, 1), b -> b.putShort(
                RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) RecordBatchDescriptor.CONTROL_MASK));
        assertCode(ErrorCode.INVALID_RECORD, validate(payload), "control");
    }

    @Test
    void producerIdWithoutSequenceIsInvalidRecord() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE).producerState(7L, (short) 0, -1);
        builder.append(NOW_MS, null, bytes("v"));
        assertCode(ErrorCode.INVALID_RECORD, validate(builder.build()), "invalid sequence number -1");
        RecordBatchBuilder idempotent = new RecordBatchBuilder(CompressionType.NONE).producerState(7L, (short) 0, 0);
        idempotent.append(NOW_MS, null, bytes("v"));
        assertCode(ErrorCode.NONE, validate(idempotent.build()));
    }

    @Test
    void transactionalBatchIsAcceptedWithAProducerIdOnly() {
        ByteBuffer payload = mutate(new RecordBatchBuilder(CompressionType.NONE).producerState(7L, (short) 0, 0)
                .append(NOW_MS, null, bytes("v")).build(), b -> b.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET,
                (short) RecordBatchDescriptor.TRANSACTIONAL_MASK));
        assertTrue(RecordBatch.of(payload).isTransactional());
        assertCode(ErrorCode.NONE, validate(payload));
        ByteBuffer anonymous = mutate(new RecordBatchBuilder(CompressionType.NONE)
                .append(NOW_MS, null, bytes("v")).build(), b -> b.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET,
                (short) RecordBatchDescriptor.TRANSACTIONAL_MASK));
        assertCode(ErrorCode.INVALID_RECORD, validate(anonymous), "transactional batch without a producer id");
    }

    // ---- Records must parse after decompression (INVALID_RECORD, as Kafka's record readers raise it). ----

    @Test
    void recordsThatDoNotParseAreInvalidRecord() {
        // Header says three records, data holds two; CRC and offset range are consistent, so only parsing fails.
        ByteBuffer payload = mutate(batch(CompressionType.NONE, 2), b -> {
            b.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, 3);
            b.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, 2);
        });
        BatchValidationResult result = validate(payload);
        assertCode(ErrorCode.INVALID_RECORD, result, "invalid record structure");
        assertEquals(2, result.recordIndex());
        // The oracle: kafka-clients fails on the same bytes with an exception that Errors maps to the same code.
        RuntimeException kafkaFailure = assertThrows(RuntimeException.class,
            () -> KafkaOracle.onlyKafkaBatch(payload).forEach(record -> { }));
        assertEquals(ErrorCode.INVALID_RECORD.code(), Errors.forException(kafkaFailure).code());
        ByteBuffer badVarint = RecordCursorTest.singleRecordBatch(new byte[] {(byte) 0xff, (byte) 0xff,
            (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0});
        assertCode(ErrorCode.INVALID_RECORD, validate(badVarint), "varint longer than");
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void corruptCompressedDataUnderAValidCrcIsInvalidRecord(CompressionType compressionType) {
        ByteBuffer payload = mutate(batch(compressionType, 5), b -> {
            for (int i = RecordBatchDescriptor.RECORDS_OFFSET + 4; i < b.limit(); i += 3) {
                b.put(i, (byte) 0x5a);
            }
        });
        assertCode(ErrorCode.INVALID_RECORD, validate(payload), "invalid record structure");
    }

    @Test
    void zipBombIsMessageTooLarge() {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.ZSTD);
        for (int i = 0; i < 64; i++) {
            builder.append(NOW_MS, null, new byte[256 * 1024]);
        }
        ByteBuffer payload = builder.build();
        assertTrue(payload.remaining() < 64 * 1024, "16 MiB of zeros compresses to " + payload.remaining());
        BatchValidationResult result = ProduceBatchValidator.validate(payload, PRODUCE_V9,
                DEFAULTS.withMessageBytesMax(64 * 1024), NOW_MS);
        assertCode(ErrorCode.MESSAGE_TOO_LARGE, result);
        assertTrue(result.errorMessage().contains("decompresses to more than"), result.errorMessage());
    }

    @Test
    void sparseOffsetDeltasAreInvalidRecord() {
        // Two hand-written records with offsetDeltas 0 and 2; header fields agree with a count of two.
        byte[] records = {12, 0, 0, 0, 1, 1, 0, 12, 0, 0, 4, 1, 1, 0};
        ByteBuffer payload = mutate(RecordCursorTest.singleRecordBatch(records), b -> {
            b.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, 2);
            b.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, 1);
        });
        BatchValidationResult result = validate(payload);
        assertCode(ErrorCode.INVALID_RECORD, result, "offsetDelta 2");
        assertEquals(1, result.recordIndex());
    }

    // ---- Timestamps (INVALID_TIMESTAMP 32) and keys. ----

    @Test
    void timestampsOutsideTheWindowAreInvalidTimestamp() {
        BatchValidationConfig window = new BatchValidationConfig(DEFAULTS.messageBytesMax(), DEFAULTS.segmentBytes(),
                1000, 500, false, false, DEFAULTS.decompressedBytesMax());
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(timestamps(NOW_MS - 1000, NOW_MS + 500),
                PRODUCE_V9, window, NOW_MS));
        BatchValidationResult tooOld = ProduceBatchValidator.validate(timestamps(NOW_MS, NOW_MS - 1001), PRODUCE_V9,
                window, NOW_MS);
        assertCode(ErrorCode.INVALID_TIMESTAMP, tooOld);
        assertEquals(1, tooOld.recordIndex());
        assertCode(ErrorCode.INVALID_TIMESTAMP, ProduceBatchValidator.validate(timestamps(NOW_MS + 501), PRODUCE_V9,
                window, NOW_MS));
        // No timestamp (-1) is not checked, as in Kafka.
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(timestamps(RecordBatchDescriptor.NO_TIMESTAMP),
                PRODUCE_V9, window, NOW_MS));
    }

    @Test
    void defaultWindowAllowsAnyPastButOnlyAnHourOfFuture() {
        assertCode(ErrorCode.NONE, validate(timestamps(0L, Long.MIN_VALUE + 1)));
        assertCode(ErrorCode.NONE, validate(timestamps(NOW_MS + BatchValidationConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS)));
        assertCode(ErrorCode.INVALID_TIMESTAMP,
                validate(timestamps(NOW_MS + BatchValidationConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS + 1)));
        assertCode(ErrorCode.INVALID_TIMESTAMP, validate(timestamps(Long.MAX_VALUE)));
    }

    @Test
    void logAppendTimeTopicSkipsTheWindowButRefusesALogAppendTimeBatch() {
        BatchValidationConfig logAppendTime = config(DEFAULTS.messageBytesMax(), DEFAULTS.segmentBytes(), true, false);
        assertCode(ErrorCode.NONE, ProduceBatchValidator.validate(timestamps(1L), PRODUCE_V9, logAppendTime, NOW_MS));
        ByteBuffer stamped = timestamps(NOW_MS);
        LogAppendTimeStamper.stamp(RecordBatch.of(stamped), NOW_MS);
        assertCode(ErrorCode.INVALID_TIMESTAMP, ProduceBatchValidator.validate(stamped, PRODUCE_V9, logAppendTime,
                NOW_MS));
    }

    @Test
    void compactedTopicNeedsKeysAndTimestampErrorsWin() {
        BatchValidationConfig compacted = config(DEFAULTS.messageBytesMax(), DEFAULTS.segmentBytes(), false, true);
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        builder.append(NOW_MS, bytes("k"), bytes("v")).append(NOW_MS, null, bytes("v"));
        BatchValidationResult noKey = ProduceBatchValidator.validate(builder.build(), PRODUCE_V9, compacted, NOW_MS);
        assertCode(ErrorCode.INVALID_RECORD, noKey, "without a key");
        assertEquals(1, noKey.recordIndex());
        builder.append(NOW_MS + 2 * BatchValidationConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS, bytes("k"), bytes("v"));
        assertCode(ErrorCode.INVALID_TIMESTAMP, ProduceBatchValidator.validate(builder.build(), PRODUCE_V9,
                compacted, NOW_MS));
    }

    // ---- The validator is a total function: whatever the bytes, a result, never an exception. ----

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void randomCorruptionUnderAValidCrcYieldsAResultNotAnException(CompressionType compressionType) {
        ByteBuffer original = batch(compressionType, 8);
        Random random = new Random(77 + compressionType.id());
        for (int trial = 0; trial < 1000; trial++) {
            ByteBuffer payload = mutate(original, b -> {
                int position = RecordBatchDescriptor.ATTRIBUTES_OFFSET + 2
                        + random.nextInt(b.limit() - RecordBatchDescriptor.ATTRIBUTES_OFFSET - 2);
                b.put(position, (byte) random.nextInt(256));
            });
            BatchValidationResult result = validate(payload);
            assertNotNull(result.errorCode());
            if (!result.isValid()) {
                assertNotNull(result.errorMessage());
            }
        }
    }

    // ---- Helpers ----

    private static BatchValidationResult validate(ByteBuffer payload) {
        return ProduceBatchValidator.validate(payload, PRODUCE_V9, DEFAULTS, NOW_MS);
    }

    private static void assertCode(ErrorCode expected, BatchValidationResult result) {
        assertEquals(expected, result.errorCode(), result.errorMessage());
    }

    private static void assertCode(ErrorCode expected, BatchValidationResult result, String messageFragment) {
        assertCode(expected, result);
        assertTrue(result.errorMessage().contains(messageFragment), result.errorMessage());
    }

    private static BatchValidationConfig config(int messageBytesMax, long segmentBytes, boolean logAppendTime,
                                                boolean keyRequired) {
        return new BatchValidationConfig(messageBytesMax, segmentBytes, DEFAULTS.timestampBeforeMaxMs(),
                DEFAULTS.timestampAfterMaxMs(), logAppendTime, keyRequired, DEFAULTS.decompressedBytesMax());
    }

    /** A valid idempotent batch with {@code count} keyed records at NOW_MS, NOW_MS + 1, ... */
    private static ByteBuffer batch(CompressionType compressionType, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(compressionType).producerState(11L, (short) 0, 0);
        for (int i = 0; i < count; i++) {
            builder.append(NOW_MS + i, bytes("key-" + i), bytes("value-" + i), new RecordHeader("h", bytes("x")));
        }
        return builder.build();
    }

    private static ByteBuffer timestamps(long... timestampsMs) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        for (long timestampMs : timestampsMs) {
            builder.append(timestampMs, bytes("k"), bytes("v"));
        }
        return builder.build();
    }

    /** Applies a change to a copy of the batch and rewrites its CRC, so the change reaches the later rules. */
    private static ByteBuffer mutate(ByteBuffer batch, Consumer<ByteBuffer> change) {
        ByteBuffer copy = RecordCursorTest.copyOf(batch, batch.remaining());
        change.accept(copy);
        RecordBatch.of(copy).writeChecksum();
        return copy;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
