package dev.cairn.client.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Kafka's default partitioning: a keyed record goes to {@code toPositive(murmur2(key)) % partitions}, byte for
 * byte as kafka-clients' {@code BuiltInPartitioner.partitionForKey} and {@code Utils.murmur2}, so Cairn and Kafka
 * producers put the same key in the same partition. A record without a key sticks to one partition (KIP-480) and
 * moves on at random once batch.size bytes went there, on a batch boundary as KIP-794 intends: when the partition's
 * open batch is full or has been sent (lingered out), or at the latest after twice batch.size. A switch in the middle
 * of a lingering batch would leave two part-filled batches, the old partition's and the new one's, to be sent
 * together when the old one lingers out. Thread-safe.
 */
public final class Partitioner {
    private static final int MURMUR2_SEED = 0x9747b28c;
    private static final int MURMUR2_M = 0x5bd1e995;
    private static final int MURMUR2_R = 24;

    private final int stickyBytesMax;
    private final Map<String, Sticky> stickyByTopic = new HashMap<>();

    private static final class Sticky {
        private int partition = -1;
        private long bytes;
        /** Whether the sticky partition has a batch still taking records. */
        private boolean batchOpen;
    }

    /** @param stickyBytesMax bytes sent to one sticky partition before switching at a full batch (batch.size) */
    public Partitioner(int stickyBytesMax) {
        this.stickyBytesMax = stickyBytesMax;
    }

    /** The partition for a record with this key: murmur2 of a key, or the topic's sticky partition for null. */
    public int partition(String topic, byte[] key, int partitionCount) {
        if (key != null) {
            return toPositive(murmur2(key)) % partitionCount;
        }
        synchronized (stickyByTopic) {
            Sticky sticky = stickyByTopic.computeIfAbsent(topic, unused -> new Sticky());
            if (sticky.partition < 0 || sticky.partition >= partitionCount
                    || (sticky.bytes >= stickyBytesMax && !sticky.batchOpen)) {
                switchPartition(sticky, partitionCount);
            }
            return sticky.partition;
        }
    }

    /**
     * Counts a record that {@link #partition} placed by stickiness, once appended: its bytes in the batch, and
     * whether the partition's open batch is now full. Switches the topic's sticky partition when it is time.
     */
    public void onStickyAppend(String topic, int partition, int appendedBytes, boolean batchFull, int partitionCount) {
        synchronized (stickyByTopic) {
            Sticky sticky = stickyByTopic.get(topic);
            if (sticky == null || sticky.partition != partition) {
                return; // Another thread already moved on.
            }
            sticky.bytes += appendedBytes;
            sticky.batchOpen = !batchFull;
            if ((sticky.bytes >= stickyBytesMax && batchFull) || sticky.bytes >= 2L * stickyBytesMax) {
                switchPartition(sticky, partitionCount);
            }
        }
    }

    /**
     * Notes that a partition's batch was taken for sending, so records appended to that partition from now on start
     * a new batch: if it is the topic's sticky partition and batch.size bytes already went there, the next record
     * without a key moves on.
     */
    public void onBatchSent(String topic, int partition) {
        synchronized (stickyByTopic) {
            Sticky sticky = stickyByTopic.get(topic);
            if (sticky != null && sticky.partition == partition) {
                sticky.batchOpen = false;
            }
        }
    }

    private static void switchPartition(Sticky sticky, int partitionCount) {
        sticky.partition = nextStickyPartition(sticky.partition, partitionCount);
        sticky.bytes = 0;
        sticky.batchOpen = false;
    }

    private static int nextStickyPartition(int previous, int partitionCount) {
        if (partitionCount == 1) {
            return 0;
        }
        int next = ThreadLocalRandom.current().nextInt(partitionCount - 1);
        // Skipping the previous partition makes the switch a real move, as Kafka's sticky partitioner does.
        return previous >= 0 && next >= previous ? next + 1 : next;
    }

    /** Kafka's {@code Utils.toPositive}: clears the sign bit (not Math.abs, which fails on MIN_VALUE). */
    public static int toPositive(int number) {
        return number & 0x7fffffff;
    }

    /** Kafka's {@code Utils.murmur2}: 32-bit MurmurHash2 with seed 0x9747b28c over the key bytes. */
    public static int murmur2(byte[] data) {
        int length = data.length;
        int h = MURMUR2_SEED ^ length;
        int length4 = length / 4;
        for (int i = 0; i < length4; i++) {
            int i4 = i * 4;
            int k = (data[i4] & 0xff) + ((data[i4 + 1] & 0xff) << 8) + ((data[i4 + 2] & 0xff) << 16)
                    + ((data[i4 + 3] & 0xff) << 24);
            k *= MURMUR2_M;
            k ^= k >>> MURMUR2_R;
            k *= MURMUR2_M;
            h *= MURMUR2_M;
            h ^= k;
        }
        int tail = length & ~3;
        int leftover = length % 4;
        if (leftover >= 3) {
            h ^= (data[tail + 2] & 0xff) << 16;
        }
        if (leftover >= 2) {
            h ^= (data[tail + 1] & 0xff) << 8;
        }
        if (leftover >= 1) {
            h ^= data[tail] & 0xff;
            h *= MURMUR2_M;
        }
        h ^= h >>> 13;
        h *= MURMUR2_M;
        h ^= h >>> 15;
        return h;
    }
}
