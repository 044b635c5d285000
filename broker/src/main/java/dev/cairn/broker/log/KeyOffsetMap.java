package dev.cairn.broker.log;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The compaction key map: for each record key, the offset of its latest record. Keys are kept as their 128-bit MD5
 * digest (as Kafka's cleaner keeps them), in open-addressing arrays sized once, so the memory is bounded whatever
 * the keys' sizes: 24 bytes per slot, {@code 2 x keysMax} slots. Two distinct keys with one digest would share an
 * entry (a chance of about 2^-128 per pair); every replica computes the same digests, so they would agree even then.
 * Not thread-safe; one per compaction pass.
 */
final class KeyOffsetMap {
    private static final long EMPTY = -1;
    private final long[] high;
    private final long[] low;
    private final long[] offsets;
    private final int mask;
    private final int keysMax;
    private final MessageDigest md5;
    private final byte[] digest = new byte[16];
    private int size;

    KeyOffsetMap(int keysMax) {
        if (keysMax < 1 || keysMax > 1 << 28) {
            throw new IllegalArgumentException("keysMax " + keysMax + " outside 1.." + (1 << 28));
        }
        int slots = Integer.highestOneBit(keysMax * 2 - 1) << 1;
        this.high = new long[slots];
        this.low = new long[slots];
        this.offsets = new long[slots];
        Arrays.fill(offsets, EMPTY);
        this.mask = slots - 1;
        this.keysMax = keysMax;
        try {
            this.md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    /**
     * Records {@code offset} as the latest of {@code key} (offsets arrive in increasing order). Returns false, and
     * changes nothing, when the key is new and the map already holds {@code keysMax} keys.
     */
    boolean put(ByteBuffer key, long offset) {
        int slot = find(key);
        if (offsets[slot] == EMPTY) {
            if (size == keysMax) {
                return false;
            }
            size++;
            high[slot] = digestHigh();
            low[slot] = digestLow();
        }
        offsets[slot] = offset;
        return true;
    }

    /** The latest offset recorded for {@code key}, or -1. */
    long latestOffset(ByteBuffer key) {
        return offsets[find(key)];
    }

    int size() {
        return size;
    }

    /** Digests {@code key} and returns its slot: the one holding it, or the empty slot where it would go. */
    private int find(ByteBuffer key) {
        md5.reset();
        md5.update(key.duplicate());
        try {
            md5.digest(digest, 0, digest.length);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
        long h = digestHigh();
        long l = digestLow();
        int slot = (int) (l ^ (l >>> 32)) & mask;
        while (offsets[slot] != EMPTY && (high[slot] != h || low[slot] != l)) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private long digestHigh() {
        return ByteBuffer.wrap(digest, 0, 8).getLong();
    }

    private long digestLow() {
        return ByteBuffer.wrap(digest, 8, 8).getLong();
    }
}
