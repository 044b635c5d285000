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
                assertEquals(expected, partitioner.partition("t", key, key.length, partitions));
            }
        }
    }

    @Test
    void nullKeysStickToOnePartitionForABatchThenMove() {
        int stickyBytes = 1_000;
        Partitioner partitioner = new Partitioner(stickyBytes);
        int first = partitioner.partition("t", null, 100, 6);
        for (int i = 1; i < 10; i++) {
            assertEquals(first, partitioner.partition("t", null, 100, 6), "sticky within the byte budget");
        }
        int next = partitioner.partition("t", null, 100, 6);
        assertNotEquals(first, next, "moves on after batch.size bytes");
        Set<Integer> visited = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            visited.add(partitioner.partition("t", null, stickyBytes, 6));
        }
        assertEquals(6, visited.size(), "every partition is used over time");
        assertTrue(partitioner.partition("other", null, 1, 1) == 0);
    }
}
