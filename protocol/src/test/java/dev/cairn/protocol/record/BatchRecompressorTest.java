package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.cairn.protocol.record.KafkaOracle.Producer;
import dev.cairn.protocol.record.KafkaOracle.TestRecord;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;

/**
 * A topic's compression.type: every codec rewritten to every other, and kafka-clients reads the same records with
 * the same producer fields, a valid CRC and the target codec.
 */
class BatchRecompressorTest {
    private static final long FIRST_TIMESTAMP_MS = 1_700_000_000_000L;

    @Test
    void everyCodecToEveryOtherKeepsRecordsAndProducerFields() {
        List<TestRecord> records = KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 20, 3);
        for (CompressionType source : CompressionType.values()) {
            ByteBuffer original = KafkaOracle.kafkaBatch(source, new Producer(7L, (short) 2, 100), records);
            List<Record> expected = recordsOf(KafkaOracle.onlyKafkaBatch(original.duplicate()));
            for (CompressionType target : CompressionType.values()) {
                ByteBuffer rewritten = BatchRecompressor.recompress(RecordBatch.of(original.duplicate()), target,
                        BatchValidationConfig.DEFAULT_DECOMPRESSED_BYTES_MAX);
                MutableRecordBatch kafka = KafkaOracle.onlyKafkaBatch(rewritten.duplicate());
                kafka.ensureValid();
                String pair = source + " -> " + target;
                assertEquals(target.id(), kafka.compressionType().id, pair);
                assertEquals(7L, kafka.producerId(), pair);
                assertEquals(2, kafka.producerEpoch(), pair);
                assertEquals(100, kafka.baseSequence(), pair);
                assertEquals(FIRST_TIMESTAMP_MS, RecordBatch.of(rewritten.duplicate()).baseTimestamp(), pair);
                List<Record> actual = recordsOf(kafka);
                assertEquals(expected.size(), actual.size(), pair);
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i).timestamp(), actual.get(i).timestamp(), pair);
                    assertEquals(expected.get(i).offset(), actual.get(i).offset(), pair);
                    assertArrayEquals(bytes(expected.get(i).value()), bytes(actual.get(i).value()), pair);
                    assertArrayEquals(bytes(expected.get(i).key()), bytes(actual.get(i).key()), pair);
                }
            }
        }
    }

    @Test
    void theSameCodecIsNotRewritten() {
        ByteBuffer original = KafkaOracle.kafkaBatch(CompressionType.LZ4, Producer.NONE,
                KafkaOracle.variedRecords(FIRST_TIMESTAMP_MS, 3, 1));
        RecordBatch batch = RecordBatch.of(original);
        ByteBuffer same = BatchRecompressor.recompress(batch, CompressionType.LZ4, 1 << 20);
        assertEquals(original, same);
        assertSame(original.array(), same.array());
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
