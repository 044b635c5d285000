package dev.cairn.broker.partition;

/**
 * What a placed batch is to transactions: a plain batch, a batch of a producer's open transaction, or the marker
 * that commits or aborts it (a control batch). Replicas derive the last stable offset and the aborted transactions
 * from these alone, so they need no batch bytes to do it.
 */
public enum TxnRole {
    NONE, DATA, COMMIT, ABORT;

    public boolean isMarker() {
        return this == COMMIT || this == ABORT;
    }
}
