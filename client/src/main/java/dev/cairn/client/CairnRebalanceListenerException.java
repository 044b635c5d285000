package dev.cairn.client;

/**
 * The application's {@link ConsumerRebalanceListener} threw; its exception is the cause. As kafka-clients does
 * ("User rebalance callback throws an error"), the consumer first finishes the rebalance bookkeeping (the new
 * assignment is in place, revoked partitions are gone, a needed rejoin is scheduled) and then throws this from
 * {@link CairnConsumer#poll}. Calling poll again is possible and continues from that state, hence retriable; whether
 * that is wise depends on what the listener left undone (a commit on revoke that failed means those records are
 * read again by the next owner).
 */
public class CairnRebalanceListenerException extends CairnException {
    private static final long serialVersionUID = 1L;

    public CairnRebalanceListenerException(String message, Throwable cause) {
        super(message, true, cause);
    }
}
