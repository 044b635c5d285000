package dev.cairn.broker.log;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The compaction key map: for each record key, the offset of its latest record. Keys are kept as their 128-bit MD5
 * digest (as Kafka's cleaner keeps them), in open-addressing arrays, so the memory is bounded whatever the keys'
 * sizes: 24 bytes per slot, at most {@code 2 x keysMax} slots. The arrays start small and double as keys arrive (at
 * most half full), so a pass over a few keys costs kilobytes, not the full bound. Two distinct keys with one digest
 * would share an entry (a chance of about 2^-128 per pair); every replica computes the same digests, so they would
 * agree even then. Not thread-safe; one per compaction pass.
 */
final class KeyOffsetMap {
    private static final long EMPTY = -1;
    private static final int INITIAL_SLOTS = 1024;
    private final int keysMax;
    private final MessageDigest md5;
    private final byte[] digest = new byte[16];
    private long[] high;
    private long[] low;
    private long[] offsets;
    private int mask;
    private int size;

    KeyOffsetMap(int keysMax) {
        if (keysMax < 1 || keysMax > 1 << 28) {
            throw new IllegalArgumentException("keysMax " + keysMax + " outside 1.." + (1 << 28));
        }
        this.keysMax = keysMax;
        allocate(Math.min(INITIAL_SLOTS, slotsFor(keysMax)));
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
        digest(key);
        int slot = find(digestHigh(), digestLow());
        if (offsets[slot] == EMPTY) {
            if (size == keysMax) {
                return false;
            }
            if ((size + 1) * 2 > offsets.length) {
                grow();
                slot = find(digestHigh(), digestLow());
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
        digest(key);
        return offsets[find(digestHigh(), digestLow())];
    }

    int size() {
        return size;
    }

    /** The slot holding the digest, or the empty slot where it would go. */
    private int find(long h, long l) {
        int slot = (int) (l ^ (l >>> 32)) & mask;
        while (offsets[slot] != EMPTY && (high[slot] != h || low[slot] != l)) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void grow() {
        long[] oldHigh = high;
        long[] oldLow = low;
        long[] oldOffsets = offsets;
        allocate(oldOffsets.length * 2);
        for (int i = 0; i < oldOffsets.length; i++) {
            if (oldOffsets[i] != EMPTY) {
                int slot = find(oldHigh[i], oldLow[i]);
                high[slot] = oldHigh[i];
                low[slot] = oldLow[i];
                offsets[slot] = oldOffsets[i];
            }
        }
    }

    private void allocate(int slots) {
        high = new long[slots];
        low = new long[slots];
        offsets = new long[slots];
        Arrays.fill(offsets, EMPTY);
        mask = slots - 1;
    }

    /** The smallest power of two at least twice {@code keys}. */
    private static int slotsFor(int keys) {
        return Integer.highestOneBit(keys * 2 - 1) << 1;
    }

    private void digest(ByteBuffer key) {
        md5.reset();
        md5.update(key.duplicate());
        try {
            md5.digest(digest, 0, digest.length);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    private long digestHigh() {
        return ByteBuffer.wrap(digest, 0, 8).getLong();
    }

    private long digestLow() {
        return ByteBuffer.wrap(digest, 8, 8).getLong();
    }
}
