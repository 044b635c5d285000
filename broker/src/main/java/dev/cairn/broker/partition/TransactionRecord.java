package dev.cairn.broker.partition;

import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A transactional id as its coordinator knows it: the producer id and epoch it holds, its transaction timeout, where
 * its current transaction stands, the partitions that transaction wrote (or will commit offsets for), when it began,
 * and when it last changed (the coordinator's clock as stamped into the command; timeouts are measured from it).
 */
public record TransactionRecord(String transactionalId, long producerId, short producerEpoch, int timeoutMs,
        TxnStatus status, SortedSet<TxnPartition> partitions, long startMs, long lastUpdateMs) {

    public TransactionRecord {
        partitions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
    }

    TransactionRecord with(short epoch, TxnStatus next, SortedSet<TxnPartition> nextPartitions, long start, long now) {
        return new TransactionRecord(transactionalId, producerId, epoch, timeoutMs, next, nextPartitions, start, now);
    }

    /** Whether the transaction has been open longer than its timeout as of {@code nowMs}. */
    public boolean expired(long nowMs) {
        return status == TxnStatus.ONGOING && nowMs - startMs > timeoutMs;
    }
}
