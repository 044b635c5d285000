package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.KafkaOracle.Producer;
import dev.cairn.protocol.record.KafkaOracle.TestRecord;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Compaction's batch rewrite, read back by kafka-clients: kept records keep their offsets, timestamps, keys, values
 * and headers; the batch keeps its offsets, producer fields and codec; an emptied batch spans the same offsets.
 */
class BatchFilterTest {
    private static final long FIRST_TIMESTAMP_MS = 1_700_000_000_000L;
    private static final int INFLATE_MAX = BatchValidationConfig.DEFAULT_DECOMPRESSED_BYTES_MAX;

    @Test
    void keptRecordsKeepTheirOffsetsInEveryCodec() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 20, 5);
        for (CompressionType codec : CompressionType.values()) {
            ByteBuffer original = KafkaOracle.kafkaBatch(codec, new Producer(9L, (short) 1, 40), records);
            RecordBatch.of(original).setBaseOffset(1000);
            RecordBatch.of(original).writeChecksum();
            List<Record> all = recordsOf(KafkaOracle.onlyKafkaBatch(original.duplicate()));
            // Keep offsets 1001, 1004, ... and the last one.
            ByteBuffer filtered = BatchFilter.retain(RecordBatch.of(original.duplicate()), new RecordCursor(),
                    INFLATE_MAX, r -> r.offset() % 3 == 1 || r.offset() == 1019);
            MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(filtered.duplicate());
            kafka.ensureValid();
            assertEquals(codec.id(), kafka.compressionType().id, codec.toString());
            assertEquals(1000, kafka.baseOffset(), codec.toString());
            assertEquals(1019, kafka.lastOffset(), codec.toString());
            assertEquals(9L, kafka.producerId());
            assertEquals(40, kafka.baseSequence());
            List<Record> kept = recordsOf(kafka);
            List<Record> expected = all.stream().filter(r -> r.offset() % 3 == 1 || r.offset() == 1019).toList();
            assertEquals(expected.size(), kept.size(), codec.toString());
            assertEquals(expected.size(), RecordBatch.of(filtered.duplicate()).recordsCount());
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i).offset(), kept.get(i).offset());
                assertEquals(expected.get(i).timestamp(), kept.get(i).timestamp());
                assertArrayEquals(bytes(expected.get(i).key()), bytes(kept.get(i).key()));
                assertArrayEquals(bytes(expected.get(i).value()), bytes(kept.get(i).value()));
                assertEquals(expected.get(i).headers().length, kept.get(i).headers().length);
            }
        }
    }

    @Test
    void aBatchKeepingEverythingIsReturnedAsItIs() {
        ByteBuffer original = KafkaOracle.kafkaBatch(CompressionType.ZSTD, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 5, 2));
        ByteBuffer same = BatchFilter.retain(RecordBatch.of(original), new RecordCursor(), INFLATE_MAX, r -> true);
        assertEquals(original, same);
        assertSame(original.array(), same.array());
    }

    @Test
    void aBatchLosingEveryRecordBecomesAnEmptyBatchOverTheSameOffsets() {
        ByteBuffer original = KafkaOracle.kafkaBatch(CompressionType.GZIP, new Producer(3L, (short) 0, 7),
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 8, 4));
        RecordBatch.of(original).setBaseOffset(50);
        RecordBatch.of(original).setPartitionLeaderEpoch(6);
        RecordBatch.of(original).writeChecksum();
        ByteBuffer empty = BatchFilter.retain(RecordBatch.of(original.duplicate()), new RecordCursor(), INFLATE_MAX,
                r -> false);
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(empty.duplicate());
        kafka.ensureValid();
        assertEquals(50, kafka.baseOffset());
        assertEquals(57, kafka.lastOffset());
        assertEquals(6, kafka.partitionLeaderEpoch());
        assertEquals(3L, kafka.producerId());
        assertEquals(0, kafka.countOrNull());
        assertEquals(RecordBatchDescriptor.RECORDS_OFFSET, empty.remaining());
        assertEquals(CompressionType.NONE, RecordBatch.of(empty.duplicate()).compressionType());
        assertTrue(recordsOf(kafka).isEmpty());
        // Filtering it again changes nothing: compaction is a fixed point.
        ByteBuffer again = BatchFilter.retain(RecordBatch.of(empty.duplicate()), new RecordCursor(), INFLATE_MAX,
                r -> false);
        assertEquals(empty, again);
    }

    @Test
    void filteringTwiceWithTheSameDecisionsGivesTheSameBytes() {
        ByteBuffer original = KafkaOracle.kafkaBatch(CompressionType.LZ4, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 30, 8));
        ByteBuffer once = BatchFilter.retain(RecordBatch.of(original.duplicate()), new RecordCursor(), INFLATE_MAX,
                r -> r.offset() % 2 == 0);
        ByteBuffer twice = BatchFilter.retain(RecordBatch.of(original.duplicate()), new RecordCursor(), INFLATE_MAX,
                r -> r.offset() % 2 == 0);
        assertEquals(once, twice);
        ByteBuffer refiltered = BatchFilter.retain(RecordBatch.of(once.duplicate()), new RecordCursor(), INFLATE_MAX,
                r -> r.offset() % 2 == 0);
        assertEquals(once, refiltered);
    }

    /**
     * KIP-534's delete horizon, read back by kafka-clients: the horizon in the base timestamp with its attribute set,
     * every record at its own timestamp (deltas go negative), offsets, producer fields, codec and maxTimestamp as they
     * were; uncompressed, the bytes are those Kafka's own builder writes for the same records and horizon. Setting it
     * again changes nothing.
     */
    @Test
    void aDeleteHorizonKeepsEveryRecordAtItsTimestampInEveryCodec() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 12, 3);
        long horizon = FIRST_TIMESTAMP_MS + 86_400_000L;
        Producer producer = new Producer(5L, (short) 2, 10);
        for (CompressionType codec : CompressionType.values()) {
            ByteBuffer original = KafkaOracle.kafkaBatch(codec, producer, records);
            RecordBatch.of(original).setBaseOffset(300);
            ByteBuffer marked = BatchFilter.withDeleteHorizon(RecordBatch.of(original.duplicate()), new RecordCursor(),
                    INFLATE_MAX, horizon);
            MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(marked.duplicate());
            kafka.ensureValid();
            MutableRecordBatch before = KafkaOracle.onlyKafkaBatch(original.duplicate());
            assertEquals(OptionalLong.of(horizon), kafka.deleteHorizonMs(), codec.toString());
            assertEquals(horizon, RecordBatch.of(marked.duplicate()).deleteHorizonMs());
            assertEquals(codec.id(), kafka.compressionType().id, codec.toString());
            assertEquals(300, kafka.baseOffset());
            assertEquals(311, kafka.lastOffset());
            assertEquals(5L, kafka.producerId());
            assertEquals(10, kafka.baseSequence());
            assertEquals(before.maxTimestamp(), kafka.maxTimestamp());
            List<Record> expected = recordsOf(before);
            List<Record> actual = recordsOf(kafka);
            assertEquals(expected.size(), actual.size());
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i).offset(), actual.get(i).offset());
                assertEquals(expected.get(i).timestamp(), actual.get(i).timestamp(), codec + " record " + i);
                assertArrayEquals(bytes(expected.get(i).key()), bytes(actual.get(i).key()));
                assertArrayEquals(bytes(expected.get(i).value()), bytes(actual.get(i).value()));
                assertEquals(expected.get(i).headers().length, actual.get(i).headers().length);
            }
            ByteBuffer again = BatchFilter.withDeleteHorizon(RecordBatch.of(marked.duplicate()), new RecordCursor(),
                    INFLATE_MAX, horizon + 1);
            assertEquals(marked, again, "a horizon once set stays");
        }
        ByteBuffer plain = KafkaOracle.kafkaBatch(CompressionType.NONE, producer, records);
        RecordBatch.of(plain).setBaseOffset(300);
        ByteBuffer ours = BatchFilter.withDeleteHorizon(RecordBatch.of(plain), new RecordCursor(), INFLATE_MAX,
                horizon);
        assertEquals(kafkaBatchWithDeleteHorizon(producer, records, 300, horizon), ours);
    }

    /** A transaction marker keeps its control record, read by kafka-clients as the same end-transaction marker. */
    @Test
    void aMarkerWithADeleteHorizonStaysTheSameMarker() {
        ByteBuffer marker = ControlBatch.marker(9L, (short) 4, false, 6, FIRST_TIMESTAMP_MS);
        RecordBatch.of(marker).setBaseOffset(77);
        ByteBuffer marked = BatchFilter.withDeleteHorizon(RecordBatch.of(marker.duplicate()), new RecordCursor(),
                INFLATE_MAX, FIRST_TIMESTAMP_MS + 1000);
        MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(marked.duplicate());
        kafka.ensureValid();
        assertTrue(kafka.isControlBatch() && kafka.isTransactional());
        assertEquals(OptionalLong.of(FIRST_TIMESTAMP_MS + 1000), kafka.deleteHorizonMs());
        Record record = kafka.iterator().next();
        assertEquals(FIRST_TIMESTAMP_MS, record.timestamp());
        assertEquals(77, record.offset());
        EndTransactionMarker end = EndTransactionMarker.deserialize(record);
        assertEquals(6, end.coordinatorEpoch());
        assertEquals(ControlBatch.ABORT, ControlBatch.type(RecordBatch.of(marked.duplicate())));
    }

    private static ByteBuffer kafkaBatchWithDeleteHorizon(Producer producer, List<TestRecord> records, long baseOffset,
            long deleteHorizonMs) {
        ByteBufferOutputStream out = new ByteBufferOutputStream(1 << 16);
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out,
                org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                KafkaOracle.kafkaCompression(CompressionType.NONE), TimestampType.CREATE_TIME, baseOffset,
                org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP, producer.producerId(),
                producer.producerEpoch(), producer.baseSequence(), false, false,
                org.apache.kafka.common.record.internal.RecordBatch.NO_PARTITION_LEADER_EPOCH, 1 << 16,
                deleteHorizonMs);
        for (TestRecord record : records) {
            builder.append(record.timestampMs(), record.key(), record.value(),
                    KafkaOracle.kafkaHeaders(record.headers()));
        }
        ByteBuffer built = builder.build().buffer();
        ByteBuffer copy = ByteBuffer.allocate(built.remaining());
        return copy.put(built.duplicate()).flip();
    }

    private static List<Record> recordsOf(MutableRecordBatch batch) {
        List<Record> records = new ArrayList<>();
        batch.forEach(records::add);
        return records;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
