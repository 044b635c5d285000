package dev.cairn.broker.log;

import java.util.List;

/**
 * The aborted transactions of a log, as its cleaner reads them: each one's producer, its first offset and the offset
 * of its abort marker. Kafka's cleaner reads them from each segment's {@code .txnindex}; a Cairn partition keeps them
 * in its transaction index, which the cleaner reads through this interface (the log does not depend on the
 * partition).
 */
@FunctionalInterface
public interface AbortedTransactions {
    /** A log without aborted transactions. */
    AbortedTransactions NONE = (fromOffset, toOffset, endingFromOffset) -> List.of();

    /** One aborted transaction. */
    interface Aborted {
        long producerId();

        /** The offset of its first batch in this log. */
        long firstOffset();

        /** The offset of its abort marker. */
        long lastOffset();
    }

    /**
     * The aborted transactions whose first offset lies in {@code [fromOffset, toOffset)} and whose abort marker lies
     * at or after {@code endingFromOffset}, in first-offset order.
     */
    List<? extends Aborted> beginningWithin(long fromOffset, long toOffset, long endingFromOffset);
}
