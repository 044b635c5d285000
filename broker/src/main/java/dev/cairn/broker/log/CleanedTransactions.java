package dev.cairn.broker.log;

import dev.cairn.protocol.record.ControlBatch;
import dev.cairn.protocol.record.RecordBatch;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The transactions a cleaner pass meets as it reads a log's batches in offset order, segment after segment (Kafka's
 * {@code CleanedTransactionMetadata}): which data batches belong to an aborted transaction (their records go and
 * never enter the key map), and whether the transaction a marker ends has any record left, so that the marker may go
 * once its delete horizon has passed.
 *
 * <p>One rule differs from Kafka's, because Cairn keeps an emptied batch in place (offsets stay dense) where Kafka
 * deletes it: a transaction has records left when one of its batches kept a record in this pass, not when the pass
 * read one of its batches. So an abort marker always finds its transaction empty (this pass removed the aborted
 * records before reaching the marker, or they were gone already), and a commit marker finds it empty once every
 * record of the transaction has been compacted away.
 */
final class CleanedTransactions {
    private final AbortedTransactions source;
    /** Aborted transactions fed in, not begun yet (first offset above the batches read so far). */
    private final ArrayDeque<AbortedTransactions.Aborted> pending = new ArrayDeque<>();
    /** The aborted transaction each producer is in, from its first offset to its abort marker. */
    private final Map<Long, AbortedTransactions.Aborted> abortedByProducer = new HashMap<>();
    /** Producers whose current (not aborted) transaction kept a record in this pass. */
    private final Set<Long> producersWithRecords = new HashSet<>();
    private long fedUpTo = Long.MIN_VALUE;

    CleanedTransactions(AbortedTransactions source) {
        this.source = source;
    }

    /**
     * Feeds the aborted transactions of the next segment, {@code [baseOffset, endOffset)}: those that begin in it and,
     * for the first segment read, those that began before it and end in or after it.
     */
    void onSegment(long baseOffset, long endOffset) {
        pending.addAll(source.beginningWithin(fedUpTo, endOffset, baseOffset));
        fedUpTo = endOffset;
    }

    /** Whether a data batch belongs to an aborted transaction. */
    boolean isAborted(RecordBatch batch) {
        beginUpTo(batch.lastOffset());
        if (!batch.isTransactional()) {
            return false;
        }
        AbortedTransactions.Aborted aborted = abortedByProducer.get(batch.producerId());
        return aborted != null && batch.lastOffset() < aborted.lastOffset();
    }

    /** A data batch of a transaction that is not aborted kept {@code recordsKept} records in this pass. */
    void onRecordsKept(RecordBatch batch, int recordsKept) {
        if (batch.isTransactional() && recordsKept > 0) {
            producersWithRecords.add(batch.producerId());
        }
    }

    /**
     * A control batch: an abort or commit marker ends its producer's transaction. Returns whether that transaction
     * has no record left: always for an abort marker, for a commit marker when none of its batches kept a record;
     * never for a control record of another type (Kafka keeps those). An empty control batch (a marker removed by an
     * earlier pass) ends the transaction and has nothing left to remove.
     */
    boolean onControlBatch(RecordBatch batch) {
        beginUpTo(batch.lastOffset());
        long producerId = batch.producerId();
        if (batch.recordsCount() == 0) {
            abortedByProducer.remove(producerId);
            producersWithRecords.remove(producerId);
            return true;
        }
        short type = ControlBatch.type(batch);
        if (type != ControlBatch.ABORT && type != ControlBatch.COMMIT) {
            return false;
        }
        abortedByProducer.remove(producerId);
        boolean hadRecords = producersWithRecords.remove(producerId);
        return type == ControlBatch.ABORT || !hadRecords;
    }

    /** Moves the aborted transactions that begin at or before {@code offset} to their producers. */
    private void beginUpTo(long offset) {
        while (!pending.isEmpty() && pending.peekFirst().firstOffset() <= offset) {
            AbortedTransactions.Aborted next = pending.pollFirst();
            abortedByProducer.merge(next.producerId(), next,
                    (current, later) -> current.lastOffset() < later.firstOffset() ? later : current);
        }
    }
}
