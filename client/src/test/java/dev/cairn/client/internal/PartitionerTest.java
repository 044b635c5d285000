package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** Partitioning must match kafka-clients exactly so both producers put a key in the same partition. */
class PartitionerTest {
    @Test
    void murmur2MatchesKafkaForEveryLengthAndRandomBytes() {
        Random random = new Random(42);
        for (int length = 0; length < 200; length++) {
            for (int round = 0; round < 50; round++) {
                byte[] data = new byte[length];
                random.nextBytes(data);
                assertEquals(Utils.murmur2(data), Partitioner.murmur2(data), "length " + length);
            }
        }
    }

    @Test
    void keyedPartitionMatchesKafkasBuiltInPartitioner() {
        Partitioner partitioner = new Partitioner(16_384);
        for (int partitions : new int[] {1, 2, 3, 7, 12, 100}) {
            for (int i = 0; i < 2_000; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                int expected = Utils.toPositive(Utils.murmur2(key)) % partitions;
                assertEquals(expected, partitioner.partition("t", key, partitions));
            }
        }
    }

    @Test
    void nullKeysStickUntilABatchWorthOfBytesFillsABatchThenMove() {
        int stickyBytes = 1_000;
        Partitioner partitioner = new Partitioner(stickyBytes);
        int first = partitioner.partition("t", null, 6);
        for (int i = 0; i < 12; i++) {
            assertEquals(first, partitioner.partition("t", null, 6), "sticky: batch.size reached, batch not full");
            partitioner.onStickyAppend("t", first, 100, false, 6);
        }
        assertEquals(first, partitioner.partition("t", null, 6));
        partitioner.onStickyAppend("t", first, 100, true, 6);
        int next = partitioner.partition("t", null, 6);
        assertNotEquals(first, next, "moves on once batch.size bytes went there and the batch is full");
        for (int i = 0; i < 19; i++) {
            partitioner.onStickyAppend("t", next, 100, false, 6);
        }
        assertEquals(next, partitioner.partition("t", null, 6));
        partitioner.onStickyAppend("t", next, 100, false, 6);
        assertNotEquals(next, partitioner.partition("t", null, 6), "moves on at twice batch.size in any case");
        partitioner.onStickyAppend("t", next, 5_000, true, 6);
        Set<Integer> visited = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            int partition = partitioner.partition("t", null, 6);
            visited.add(partition);
            partitioner.onStickyAppend("t", partition, stickyBytes, true, 6);
        }
        assertEquals(6, visited.size(), "every partition is used over time");
        assertTrue(partitioner.partition("other", null, 1) == 0);
    }

    @Test
    void nullKeysMoveOnWhenTheirBatchWasSentAfterBatchSizeBytes() {
        Partitioner partitioner = new Partitioner(1_000);
        int first = partitioner.partition("t", null, 6);
        for (int i = 0; i < 6; i++) {
            partitioner.onStickyAppend("t", first, 100, false, 6);
        }
        partitioner.onBatchSent("t", first);
        assertEquals(first, partitioner.partition("t", null, 6), "sent below batch.size bytes: stays");
        for (int i = 0; i < 6; i++) {
            partitioner.onStickyAppend("t", first, 100, false, 6);
        }
        assertEquals(first, partitioner.partition("t", null, 6), "batch.size bytes, but the open batch lingers");
        partitioner.onBatchSent("t", (first + 1) % 6);
        assertEquals(first, partitioner.partition("t", null, 6), "another partition's batch does not count");
        partitioner.onBatchSent("t", first);
        int next = partitioner.partition("t", null, 6);
        assertNotEquals(first, next, "batch.size bytes went there and its batch was sent: the next record moves on");
        partitioner.onBatchSent("t", next);
        assertEquals(next, partitioner.partition("t", null, 6), "a fresh partition is kept until it gets its bytes");
    }

    @Test
    void aStaleAppendDoesNotMoveTheNewStickyPartition() {
        Partitioner partitioner = new Partitioner(1_000);
        int first = partitioner.partition("t", null, 6);
        partitioner.onStickyAppend("t", first, 2_000, true, 6);
        int second = partitioner.partition("t", null, 6);
        partitioner.onStickyAppend("t", first, 2_000, true, 6);
        assertEquals(second, partitioner.partition("t", null, 6), "an append counted for the old partition");
    }
}
