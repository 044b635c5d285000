package dev.cairn.broker.partition;

import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A transactional id as its coordinator knows it: the producer id and epoch it holds, its transaction timeout, where
 * its current transaction stands, the partitions that transaction wrote (they get its markers) and those it only
 * committed consumer offsets for (they get the end of the transaction without a marker in their log), when it
 * began, and when it last changed (the coordinator's clock as stamped into the command; timeouts count from it).
 */
public record TransactionRecord(String transactionalId, long producerId, short producerEpoch, int timeoutMs,
        TxnStatus status, SortedSet<TxnPartition> partitions, SortedSet<TxnPartition> offsetPartitions, long startMs,
        long lastUpdateMs) {

    public TransactionRecord {
        partitions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        offsetPartitions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(offsetPartitions));
    }

    TransactionRecord with(short epoch, TxnStatus next, long start, long now) {
        return new TransactionRecord(transactionalId, producerId, epoch, timeoutMs, next, partitions, offsetPartitions,
                start, now);
    }

    /** The partitions that get no marker: offsets committed there, nothing written. */
    public SortedSet<TxnPartition> offsetsOnlyPartitions() {
        SortedSet<TxnPartition> only = new TreeSet<>(offsetPartitions);
        only.removeAll(partitions);
        return only;
    }

    /**
     * Whether the transactional id may be forgotten as of {@code nowMs} (Kafka's {@code transactional.id.expiration.ms}
     * rule): it holds no transaction open or ending, and was last updated {@code expirationMs} or more before.
     */
    public boolean expirable(long nowMs, long expirationMs) {
        boolean idle = status == TxnStatus.EMPTY || status == TxnStatus.COMPLETE_COMMIT
                || status == TxnStatus.COMPLETE_ABORT;
        return idle && nowMs - lastUpdateMs >= expirationMs;
    }

    /** Whether the transaction has been open longer than its timeout as of {@code nowMs}. */
    public boolean expired(long nowMs) {
        return status == TxnStatus.ONGOING && nowMs - startMs > timeoutMs;
    }
}
