package dev.cairn.broker.partition;

import dev.cairn.broker.io.StorageException;

/**
 * A placed batch is not in the log where its Raft entry says it is (missing, or other bytes there), or cannot be
 * read: the replica cannot serve or commit it. A gap ({@link #missingFrom()}) is filled from the leader's copy where
 * it can be (a replica whose machine lost unflushed bytes); otherwise the partition goes offline on this replica.
 */
public final class PlacedBatchException extends StorageException {
    private static final long serialVersionUID = 1L;
    private final long missingFrom;

    PlacedBatchException(String message) {
        this(message, -1);
    }

    PlacedBatchException(String message, long missingFrom) {
        super(message);
        this.missingFrom = missingFrom;
    }

    PlacedBatchException(String message, Throwable cause) {
        super(message, cause);
        this.missingFrom = -1;
    }

    /**
     * The first offset whose committed bytes this replica lacks (from here on its log holds nothing committed, or
     * other bytes), or -1 when this failure is not a gap that the leader's copy can fill.
     */
    public long missingFrom() {
        return missingFrom;
    }
}
