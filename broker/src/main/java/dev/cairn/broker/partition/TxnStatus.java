package dev.cairn.broker.partition;

/**
 * Where a transactional id's current transaction stands on its coordinator (Kafka's transaction states): none
 * begun, partitions being written, being ended (markers under way), or ended.
 */
public enum TxnStatus {
    EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT;

    /** Markers are being written: the transaction can neither change nor be followed by another yet. */
    public boolean isPreparing() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }
}
