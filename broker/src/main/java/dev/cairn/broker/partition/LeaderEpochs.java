package dev.cairn.broker.partition;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where each leader epoch's batches start in one partition's log: Kafka's leader-epoch cache (KIP-101), which
 * OffsetForLeaderEpoch answers from so that consumers can check their position after a leader change (KIP-320).
 * In Cairn a batch's leader epoch is the Raft term of the entry that appended it, so epochs only grow along the
 * log, and the log of applied entries is never truncated at its end: a consumer position is always below the end
 * offset this cache gives for its epoch.
 *
 * <p>One writer (the partition's apply thread) and readers on any thread: every method is synchronized. At most
 * {@link #EPOCHS_MAX} epochs are kept (one per Raft term that appended a batch); past it the oldest is dropped, and
 * an epoch older than every kept one is answered as Kafka answers an epoch below its cache's first.
 */
public final class LeaderEpochs {
    /** Kafka's UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET. */
    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_OFFSET = -1;
    /** Most epochs kept per partition (12 bytes each in snapshots). */
    public static final int EPOCHS_MAX = 10_000;

    private final TreeMap<Integer, Long> starts = new TreeMap<>();

    /** An epoch and the offset its batches end at (exclusive): OffsetForLeaderEpoch's answer. */
    public record EndOffset(int epoch, long endOffset) {
        static final EndOffset UNDEFINED = new EndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);
    }

    /** Records a batch appended at {@code baseOffset} in {@code epoch}; only a new, larger epoch adds an entry. */
    public synchronized void onAppended(int epoch, long baseOffset) {
        if (epoch < 0 || (!starts.isEmpty() && epoch <= starts.lastKey())) {
            return;
        }
        starts.put(epoch, baseOffset);
        if (starts.size() > EPOCHS_MAX) {
            starts.pollFirstEntry();
        }
    }

    /** The log now starts at {@code logStartOffset}: epochs wholly below it go, the one spanning it starts there. */
    public synchronized void onLogStartMoved(long logStartOffset) {
        while (starts.size() > 1 && starts.get(starts.higherKey(starts.firstKey())) <= logStartOffset) {
            starts.pollFirstEntry();
        }
        if (!starts.isEmpty() && starts.firstEntry().getValue() < logStartOffset) {
            starts.put(starts.firstKey(), logStartOffset);
        }
    }

    /**
     * The end offset of {@code requested}, as Kafka's leader computes it: the start of the first later epoch, or the
     * log end offset when no later epoch appended anything; with the largest known epoch not above the requested one.
     * The current epoch ends at the log end offset even before it appended a batch (Kafka's leader records its epoch
     * when elected; a Raft leader appends no Kafka batch then). An epoch above the current one, or negative, is
     * undefined.
     */
    public synchronized EndOffset endOffsetFor(int requested, int currentEpoch, long logEndOffset) {
        if (requested < 0 || requested > currentEpoch) {
            return EndOffset.UNDEFINED;
        }
        if (requested == currentEpoch) {
            return new EndOffset(requested, logEndOffset);
        }
        Map.Entry<Integer, Long> higher = starts.higherEntry(requested);
        Map.Entry<Integer, Long> floor = starts.floorEntry(requested);
        return new EndOffset(floor == null ? requested : floor.getKey(),
                higher == null ? logEndOffset : higher.getValue());
    }

    public synchronized Map<Integer, Long> toMap() {
        return new TreeMap<>(starts);
    }

    public synchronized void replaceWith(Map<Integer, Long> epochStarts) {
        starts.clear();
        new TreeMap<>(epochStarts).forEach(this::onAppended);
    }

    public synchronized void clear() {
        starts.clear();
    }

    /** Bytes read at a time when rebuilding the epochs from the log. */
    private static final int EPOCH_SCAN_BYTES = 1 << 20;

    /** Replaces the epochs with those the batches of {@code log} below {@code upToOffset} carry (old snapshots). */
    void rebuildFrom(dev.cairn.broker.log.Log log, long upToOffset) {
        clear();
        long offset = log.logStartOffset();
        dev.cairn.protocol.record.RecordBatch batch = new dev.cairn.protocol.record.RecordBatch();
        try {
            while (offset < upToOffset) {
                dev.cairn.broker.log.LogSlice slice = log.read(offset, EPOCH_SCAN_BYTES, upToOffset);
                if (slice.isEmpty()) {
                    break;
                }
                java.nio.ByteBuffer bytes = slice.readBytes();
                for (int position = bytes.position(); position < bytes.limit(); ) {
                    batch.wrap(bytes, position);
                    onAppended(batch.partitionLeaderEpoch(), batch.baseOffset());
                    position += batch.sizeInBytes();
                }
                offset = slice.nextOffset();
            }
        } catch (java.io.IOException | dev.cairn.protocol.wire.DecodeException e) {
            throw new dev.cairn.broker.io.StorageException("reading leader epochs from " + log, e);
        }
    }

    /** The epochs as a snapshot recorded them, or, for one from before they were, as the log's batches say. */
    void restore(Map<Integer, Long> recorded, dev.cairn.broker.log.Log log, long upToOffset) {
        if (recorded == null) {
            rebuildFrom(log, upToOffset);
            return;
        }
        replaceWith(recorded);
        onLogStartMoved(log.logStartOffset());
    }
}
