package dev.cairn.broker.partition;

import dev.cairn.broker.partition.SequenceCheck.Duplicate;
import dev.cairn.broker.partition.SequenceCheck.Reject;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Idempotent-producer state of one partition (KIP-98 semantics as the Java producer expects them): per
 * producer id, the current epoch and the last {@link #BATCHES_PER_PRODUCER_MAX} appended batches.
 *
 * <ul>
 *   <li>A batch whose epoch and exact sequence range match a remembered batch is a duplicate: answered with
 *       the original offsets and not appended.</li>
 *   <li>A lower epoch is fenced: {@code INVALID_PRODUCER_EPOCH}.</li>
 *   <li>A higher epoch must start at sequence 0, unless the producer is unknown here.</li>
 *   <li>The same epoch must continue at last sequence + 1 (wrapping from Integer.MAX_VALUE to 0), else
 *       {@code OUT_OF_ORDER_SEQUENCE_NUMBER}, which the client retries while earlier batches are in flight.</li>
 *   <li>A producer with no state here (new, or forgotten after retention) must start at sequence 0; any other
 *       sequence gets {@code UNKNOWN_PRODUCER_ID}, to which the Java client answers by retrying in order or by
 *       bumping its epoch. Kafka accepts any sequence here; Cairn does not, because after a leader change a
 *       later in-flight batch can reach the new leader before the first one, and accepting it would leave the
 *       first batch out of order forever.</li>
 * </ul>
 *
 * <p>Derived state: it is rebuilt deterministically by replaying the Raft log, and it is part of the
 * partition's snapshot ({@link #writeTo}/{@link #readFrom}). Single writer: the partition's apply thread.
 * The table holds at most {@link #PRODUCERS_MAX} producers; past that the producer whose last append is
 * oldest is forgotten (deterministic, and exactly what Kafka's expiry does to an idle producer).
 */
public final class ProducerStateTable {
    /** Kafka's NUM_BATCHES_TO_RETAIN, matching the client's max.in.flight.requests.per.connection of 5. */
    public static final int BATCHES_PER_PRODUCER_MAX = 5;
    /** Producers remembered per partition before the least recently appending one is forgotten. */
    public static final int PRODUCERS_MAX = 10_000;

    private static final int SNAPSHOT_FORMAT_VERSION = 1;
    private static final int SNAPSHOT_BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

    private final Map<Long, ProducerEntry> producers = new TreeMap<>();

    /** Epoch and recent batches of one producer id. */
    private static final class ProducerEntry {
        short epoch;
        final ArrayDeque<ProducerBatch> batches = new ArrayDeque<>(BATCHES_PER_PRODUCER_MAX);

        ProducerEntry(short epoch) {
            this.epoch = epoch;
        }

        ProducerBatch last() {
            return batches.peekLast();
        }
    }

    public int size() {
        return producers.size();
    }

    /** Decides what to do with an idempotent batch; changes nothing. */
    public SequenceCheck check(long producerId, short epoch, int firstSequence, int lastSequence) {
        ProducerEntry entry = producers.get(producerId);
        if (entry == null) {
            if (firstSequence == 0) {
                return SequenceCheck.APPEND;
            }
            return new Reject(ErrorCode.UNKNOWN_PRODUCER_ID, "producer " + producerId + " has no state here and "
                    + "sent sequence " + firstSequence + " instead of 0");
        }
        if (epoch < entry.epoch) {
            return new Reject(ErrorCode.INVALID_PRODUCER_EPOCH, "producer " + producerId + " epoch " + epoch
                    + " is older than the current epoch " + entry.epoch);
        }
        if (epoch > entry.epoch) {
            if (firstSequence != 0) {
                return new Reject(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + producerId + " new epoch "
                        + epoch + " must start at sequence 0, not " + firstSequence);
            }
            return SequenceCheck.APPEND;
        }
        for (ProducerBatch batch : entry.batches) {
            if (batch.firstSequence() == firstSequence && batch.lastSequence() == lastSequence) {
                return new Duplicate(batch);
            }
        }
        ProducerBatch last = entry.last();
        if (last != null && firstSequence != nextSequence(last.lastSequence())) {
            return new Reject(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + producerId + " epoch " + epoch
                    + " sent sequence " + firstSequence + ", expected " + nextSequence(last.lastSequence()));
        }
        return SequenceCheck.APPEND;
    }

    /** Records an appended batch; call only after {@link #check} said {@code APPEND} and the append happened. */
    public void onAppended(long producerId, short epoch, ProducerBatch batch) {
        ProducerEntry entry = producers.get(producerId);
        if (entry == null) {
            maybeForgetOldest();
            entry = new ProducerEntry(epoch);
            producers.put(producerId, entry);
        } else if (epoch != entry.epoch) {
            entry.epoch = epoch;
            entry.batches.clear();
        }
        if (entry.batches.size() == BATCHES_PER_PRODUCER_MAX) {
            entry.batches.removeFirst();
        }
        entry.batches.addLast(batch);
    }

    /** A transaction marker's check: one older than the producer's epoch here is refused (a fenced epoch). */
    public SequenceCheck checkMarker(long producerId, short epoch) {
        ProducerEntry entry = producers.get(producerId);
        if (entry != null && epoch < entry.epoch) {
            return new Reject(ErrorCode.INVALID_PRODUCER_EPOCH, "transaction marker of producer " + producerId
                    + " epoch " + epoch + " is older than the current epoch " + entry.epoch);
        }
        return SequenceCheck.APPEND;
    }

    /**
     * Records a transaction marker that {@link #checkMarker} let through: a newer epoch becomes the producer's, and
     * the batches of its older epochs are forgotten (they are fenced from here on).
     */
    public void onMarker(long producerId, short epoch) {
        ProducerEntry entry = producers.get(producerId);
        if (entry == null) {
            maybeForgetOldest();
            producers.put(producerId, new ProducerEntry(epoch));
        } else if (epoch > entry.epoch) {
            entry.epoch = epoch;
            entry.batches.clear();
        }
    }

    /** Forgets batches that retention or truncation removed from the log (they can no longer be answered). */
    public void onLogTruncatedBelow(long logStartOffset) {
        Iterator<ProducerEntry> it = producers.values().iterator();
        while (it.hasNext()) {
            ProducerEntry entry = it.next();
            entry.batches.removeIf(b -> b.lastOffset() < logStartOffset);
            if (entry.batches.isEmpty()) {
                it.remove();
            }
        }
    }

    /** Forgets batches at or above {@code logEndOffset}, for a log truncated back to it. */
    public void onLogTruncatedTo(long logEndOffset) {
        Iterator<ProducerEntry> it = producers.values().iterator();
        while (it.hasNext()) {
            ProducerEntry entry = it.next();
            entry.batches.removeIf(b -> b.baseOffset() >= logEndOffset);
            if (entry.batches.isEmpty()) {
                it.remove();
            }
        }
    }

    static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }

    private void maybeForgetOldest() {
        if (producers.size() < PRODUCERS_MAX) {
            return;
        }
        long oldestId = -1;
        long oldestOffset = Long.MAX_VALUE;
        for (Map.Entry<Long, ProducerEntry> e : producers.entrySet()) {
            ProducerBatch last = e.getValue().last();
            long lastOffset = last == null ? -1 : last.lastOffset();
            if (lastOffset < oldestOffset) {
                oldestOffset = lastOffset;
                oldestId = e.getKey();
            }
        }
        producers.remove(oldestId);
    }

    /** What DescribeProducers tells of one producer: its epoch, and its last batch's last sequence and timestamp. */
    public record ProducerSummary(long producerId, short epoch, int lastSequence, long lastTimestampMs) {
    }

    /** Every producer remembered here, in id order. */
    public java.util.List<ProducerSummary> summaries() {
        java.util.List<ProducerSummary> summaries = new java.util.ArrayList<>();
        producers.forEach((id, entry) -> summaries.add(new ProducerSummary(id, entry.epoch,
                entry.last() == null ? -1 : entry.last().lastSequence(),
                entry.last() == null ? -1 : entry.last().timestampMs())));
        return summaries;
    }

    /** An independent copy of this table (through its snapshot form). */
    public ProducerStateTable copy() {
        ByteBuffer state = ByteBuffer.allocate(serializedSizeInBytes());
        writeTo(state);
        ProducerStateTable copy = new ProducerStateTable();
        copy.readFrom(state.flip());
        return copy;
    }

    /** Bytes {@link #writeTo} will write. */
    public int serializedSizeInBytes() {
        int size = 4 + 4;
        for (ProducerEntry entry : producers.values()) {
            size += 8 + 2 + 4 + entry.batches.size() * SNAPSHOT_BATCH_BYTES;
        }
        return size;
    }

    /**
     * Snapshot layout: {@code version i32, producerCount i32}, then per producer in id order
     * {@code producerId i64, epoch i16, batchCount i32, batchCount x (firstSeq i32, lastSeq i32, baseOffset i64,
     * lastOffset i64, timestampMs i64)}.
     */
    public void writeTo(ByteBuffer out) {
        out.putInt(SNAPSHOT_FORMAT_VERSION);
        out.putInt(producers.size());
        for (Map.Entry<Long, ProducerEntry> e : producers.entrySet()) {
            out.putLong(e.getKey());
            out.putShort(e.getValue().epoch);
            out.putInt(e.getValue().batches.size());
            for (ProducerBatch b : e.getValue().batches) {
                out.putInt(b.firstSequence());
                out.putInt(b.lastSequence());
                out.putLong(b.baseOffset());
                out.putLong(b.lastOffset());
                out.putLong(b.timestampMs());
            }
        }
    }

    /** Replaces this table's contents with a snapshot written by {@link #writeTo}. */
    public void readFrom(ByteBuffer in) {
        int version = in.getInt();
        if (version != SNAPSHOT_FORMAT_VERSION) {
            throw new IllegalStateException("producer state snapshot version " + version + " is not "
                    + SNAPSHOT_FORMAT_VERSION);
        }
        int count = in.getInt();
        if (count < 0 || count > PRODUCERS_MAX) {
            throw new IllegalStateException("producer state snapshot holds " + count + " producers, outside [0, "
                    + PRODUCERS_MAX + "]");
        }
        producers.clear();
        for (int i = 0; i < count; i++) {
            long producerId = in.getLong();
            ProducerEntry entry = new ProducerEntry(in.getShort());
            int batches = in.getInt();
            if (batches < 0 || batches > BATCHES_PER_PRODUCER_MAX) {
                throw new IllegalStateException("producer " + producerId + " snapshot holds " + batches
                        + " batches, outside [0, " + BATCHES_PER_PRODUCER_MAX + "]");
            }
            for (int j = 0; j < batches; j++) {
                entry.batches.addLast(new ProducerBatch(in.getInt(), in.getInt(), in.getLong(), in.getLong(),
                        in.getLong()));
            }
            producers.put(producerId, entry);
        }
    }
}
