package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.KafkaOracle.TestRecord;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.KafkaOracle.Producer;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The header flyweight: the CRC-32C covers exactly bytes 21 to the end, and the broker's in-place rewrites
 * leave a batch kafka-clients accepts (kafka-protocol.md A.2, "Offset assignment").
 */
class RecordBatchTest {
    private static final long FIRST_TIMESTAMP_MS = 1_700_000_000_000L;

    @Test
    void everySingleBitFlipUnderTheCrcOfASmallBatchIsCaught() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, new Producer(1L, (short) 0, 0),
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 3, 17));
        RecordBatch batch = RecordBatch.of(buffer);
        assertTrue(batch.isChecksumValid());
        // From the CRC field itself (a flip there is a mismatch too) to the last bit of the last record.
        int checkedBits = 0;
        for (int bit = RecordBatchDescriptor.CRC_OFFSET * Byte.SIZE; bit < buffer.limit() * Byte.SIZE; bit++) {
            flipBit(buffer, bit);
            assertFalse(batch.isChecksumValid(), "bit " + bit);
            flipBit(buffer, bit);
            checkedBits++;
        }
        assertTrue(batch.isChecksumValid());
        assertEquals((buffer.limit() - RecordBatchDescriptor.CRC_OFFSET) * Byte.SIZE, checkedBits);
    }

    @Test
    void sampledBitFlipsUnderTheCrcOfALargeBatchAreCaught() {
        List<TestRecord> records = new ArrayList<>();
        Random random = new Random(42);
        for (int i = 0; i < 64; i++) {
            records.add(new TestRecord(FIRST_TIMESTAMP_MS + i, KafkaOracle.bytes(random, 16),
                    KafkaOracle.bytes(random, 16 * 1024)));
        }
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE, records);
        RecordBatch batch = RecordBatch.of(buffer);
        assertTrue(batch.sizeInBytes() > 1024 * 1024);
        int firstBit = RecordBatchDescriptor.ATTRIBUTES_OFFSET * Byte.SIZE;
        int bits = buffer.limit() * Byte.SIZE - firstBit;
        for (int sample = 0; sample < 300; sample++) {
            // Always include the first and last covered bits; the rest are spread at random.
            int bit = sample == 0 ? firstBit : sample == 1 ? firstBit + bits - 1 : firstBit + random.nextInt(bits);
            flipBit(buffer, bit);
            assertFalse(batch.isChecksumValid(), "bit " + bit);
            flipBit(buffer, bit);
        }
        assertTrue(batch.isChecksumValid());
    }

    @Test
    void fieldsOutsideTheCrcCanChangeWithoutBreakingIt() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 2, 3));
        RecordBatch batch = RecordBatch.of(buffer);
        long checksum = batch.checksum();
        for (int bit = 0; bit < RecordBatchDescriptor.LENGTH_OFFSET * Byte.SIZE; bit++) {
            flipBit(buffer, bit);
            assertTrue(batch.isChecksumValid(), "baseOffset bit " + bit);
        }
        for (int bit = RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET * Byte.SIZE;
             bit < RecordBatchDescriptor.CRC_OFFSET * Byte.SIZE; bit++) {
            flipBit(buffer, bit);
            assertTrue(batch.isChecksumValid(), "leader epoch or magic bit " + bit);
        }
        assertEquals(checksum, batch.checksum());
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void kafkaReadsTheBatchAfterOffsetAssignment(CompressionType compressionType) {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 25, 8);
        ByteBuffer buffer = KafkaOracle.kafkaBatch(compressionType, new Producer(9L, (short) 1, 40), records);
        RecordBatch batch = RecordBatch.of(buffer);
        long checksum = batch.checksum();
        long baseOffset = 1_234_567_890_123L;

        batch.setBaseOffset(baseOffset);
        batch.setPartitionLeaderEpoch(77);

        assertEquals(checksum, batch.checksum());
        assertTrue(batch.isChecksumValid());
        assertEquals(baseOffset + 24, batch.lastOffset());
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertTrue(kafka.isValid());
        assertEquals(baseOffset, kafka.baseOffset());
        assertEquals(baseOffset + 24, kafka.lastOffset());
        assertEquals(77, kafka.partitionLeaderEpoch());
        long expectedOffset = baseOffset;
        for (Record record : kafka) {
            assertEquals(expectedOffset++, record.offset());
        }
        assertEquals(baseOffset + 25, expectedOffset);
    }

    @Test
    void setLastOffsetMatchesKafkasSetLastOffset() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 10, 3);
        ByteBuffer ours = KafkaOracle.kafkaBatch(CompressionType.ZSTD, Producer.NONE, records);
        ByteBuffer kafkas = RecordCursorTest.copyOf(ours, ours.remaining());
        RecordBatch.of(ours).setLastOffset(509L);
        KafkaOracle.onlyKafkaBatch(kafkas).setLastOffset(509L);
        assertEquals(kafkas, ours);
        assertEquals(500L, RecordBatch.of(ours).baseOffset());
    }

    @Test
    void setMaxTimestampRewritesTheCrcOnlyWhenTheValueChanges() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.LZ4, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 4, 1));
        RecordBatch batch = RecordBatch.of(buffer);
        long checksum = batch.checksum();
        batch.setMaxTimestamp(batch.maxTimestamp());
        assertEquals(checksum, batch.checksum());

        batch.setMaxTimestamp(FIRST_TIMESTAMP_MS + 999_999);
        assertTrue(batch.isChecksumValid());
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertEquals(FIRST_TIMESTAMP_MS + 999_999, kafka.maxTimestamp());
        assertEquals(TimestampType.CREATE_TIME, kafka.timestampType());
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void logAppendTimeStampIsReadByKafkaAsEveryRecordsTimestamp(CompressionType compressionType) {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 6, 2);
        ByteBuffer buffer = KafkaOracle.kafkaBatch(compressionType, Producer.NONE, records);
        RecordBatch batch = RecordBatch.of(buffer);
        long appendTimeMs = FIRST_TIMESTAMP_MS + 5_000;

        LogAppendTimeStamper.stamp(batch, appendTimeMs);

        assertTrue(batch.isChecksumValid());
        assertTrue(batch.isLogAppendTime());
        assertEquals(compressionType, batch.compressionType());
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertEquals(TimestampType.LOG_APPEND_TIME, kafka.timestampType());
        assertEquals(appendTimeMs, kafka.maxTimestamp());
        Iterator<Record> kafkaRecords = kafka.iterator();
        RecordCursor cursor = batch.records();
        while (cursor.next()) {
            assertEquals(appendTimeMs, cursor.timestamp());
            assertEquals(appendTimeMs, kafkaRecords.next().timestamp());
        }
        assertFalse(kafkaRecords.hasNext());
    }

    @Test
    void lastSequenceWrapsPastIntegerMaxValueAsKafkaDoes() {
        ByteBuffer buffer = KafkaOracle.kafkaBatch(CompressionType.NONE,
                new Producer(5L, (short) 0, Integer.MAX_VALUE - 1), KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS,
                        4, 4));
        assertEquals(KafkaOracle.onlyKafkaBatch(buffer).lastSequence(), RecordBatch.of(buffer).lastSequence());
        assertEquals(1, RecordBatch.of(buffer).lastSequence());
    }

    @Test
    void sliceHoldsExactlyTheBatch() {
        ByteBuffer batchBytes = KafkaOracle.kafkaBatch(CompressionType.NONE, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 2, 9));
        ByteBuffer buffer = ByteBuffer.allocate(batchBytes.remaining() + 20);
        buffer.position(5);
        buffer.put(batchBytes.duplicate());
        ByteBuffer slice = new RecordBatch().wrap(buffer, 5).slice();
        assertEquals(batchBytes, slice);
    }

    private static void flipBit(ByteBuffer buffer, int bit) {
        int position = bit / Byte.SIZE;
        buffer.put(position, (byte) (buffer.get(position) ^ (1 << (bit % Byte.SIZE))));
    }
}
