package dev.cairn.broker.partition;

import dev.cairn.broker.io.StorageException;

/**
 * A placed batch is not in the log where its Raft entry says it is (missing, or other bytes there), or cannot be
 * read: the replica cannot serve or commit it, and goes offline as for any storage failure.
 */
public final class PlacedBatchException extends StorageException {
    private static final long serialVersionUID = 1L;

    PlacedBatchException(String message) {
        super(message);
    }

    PlacedBatchException(String message, Throwable cause) {
        super(message, cause);
    }
}
