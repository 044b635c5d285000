package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.client.ConsumerRecord;
import dev.cairn.client.RecordMetadata;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordHeader;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Sequence arithmetic must match Kafka's, including the wrap at Integer.MAX_VALUE (kafka-protocol.md A.3); a split
 * keeps records, futures, order and sequences.
 */
class ProducerBatchTest {
    private static final TopicPartition PARTITION = new TopicPartition("t", 0);

    @Test
    void splitKeepsRecordsFuturesOrderAndSequences() {
        ProducerBatch batch = new ProducerBatch(PARTITION, 7, new RecordBatchBuilder(CompressionType.LZ4), 1_000, 100);
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(batch.append(500 + i, bytes("k" + i), bytes("v" + i),
                    new RecordHeader[] {new RecordHeader("h", bytes("h" + i))}));
        }
        batch.baseSequence = Integer.MAX_VALUE - 1;
        batch.closed = true;
        batch.build(42, (short) 3, true);

        List<ProducerBatch> halves = batch.split(new RecordDecoder(true));

        ProducerBatch head = halves.get(0);
        ProducerBatch tail = halves.get(1);
        assertEquals(2, head.recordsCount());
        assertEquals(3, tail.recordsCount());
        assertEquals(Integer.MAX_VALUE - 1, head.baseSequence);
        assertEquals(0, tail.baseSequence, "the sequence wraps as Kafka's does");
        assertEquals(100, head.reservedBytes + tail.reservedBytes);
        assertTrue(head.precedes(tail) && !tail.precedes(head));
        ProducerBatch later = new ProducerBatch(PARTITION, 8, new RecordBatchBuilder(CompressionType.NONE), 1_001, 1);
        assertTrue(tail.precedes(later) && !later.precedes(head));
        List<ConsumerRecord> tailRecords = new RecordDecoder(true).decode(PARTITION, tail.build(42, (short) 3, true),
                0).records();
        assertEquals(3, tailRecords.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(bytes("v" + (i + 2)), tailRecords.get(i).value());
            assertArrayEquals(bytes("h" + (i + 2)), tailRecords.get(i).headers().get(0).value());
            assertEquals(502 + i, tailRecords.get(i).timestampMs());
        }

        head.succeed(10, -1);
        assertEquals(11, futures.get(1).join().offset());
        assertFalse(batch.done.isDone(), "done only when both halves are");
        tail.succeed(20, -1);
        assertEquals(22, futures.get(4).join().offset());
        assertTrue(batch.done.isDone());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void incrementSequenceMatchesKafkaIncludingTheWrap() {
        int[] sequences = {0, 1, 1000, Integer.MAX_VALUE - 10, Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
        int[] increments = {0, 1, 5, 10, 11, 500};
        for (int sequence : sequences) {
            for (int increment : increments) {
                assertEquals(DefaultRecordBatch.incrementSequence(sequence, increment),
                        ProducerBatch.incrementSequence(sequence, increment), sequence + " + " + increment);
            }
        }
        assertEquals(0, ProducerBatch.incrementSequence(Integer.MAX_VALUE, 1));
    }
}
