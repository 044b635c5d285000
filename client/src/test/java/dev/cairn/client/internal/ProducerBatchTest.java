package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.junit.jupiter.api.Test;

/** Sequence arithmetic must match Kafka's, including the wrap at Integer.MAX_VALUE (kafka-protocol.md A.3). */
class ProducerBatchTest {
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
