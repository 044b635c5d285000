package dev.cairn.broker.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Bounds a partition group's Raft log by bytes. Every entry keeps its whole Kafka batch in the Raft log until a
 * snapshot lets Ratis purge it, and Ratis triggers snapshots by entry count only: 10,000 entries of 1 MiB batches
 * are 10 GiB of Raft log per partition. Once {@code intervalBytes} of entries were applied since the last snapshot,
 * this asks Ratis for one (a snapshot-management request), which Ratis takes on the group's apply thread and then
 * purges its log behind.
 *
 * <p>At most one request is outstanding per group. A request that fails (the group closing, an installation in
 * progress, a timeout) is asked again at the next applied entry.
 *
 * <p>Thread safety: {@link #onApplied} and {@link #onSnapshotTaken} run on the group's apply thread (Ratis takes
 * snapshots there too); the request completes on any thread.
 */
final class SnapshotByBytes {
    private final long intervalBytes;
    private final Supplier<CompletableFuture<?>> request;
    private final AtomicBoolean requested = new AtomicBoolean();
    private long bytesSinceSnapshot;

    /**
     * @param intervalBytes bytes of applied entries after which a snapshot is asked for
     * @param request sends the request (null: never ask) without blocking the caller (the apply thread); its
     *                future completes when Ratis has answered it, or failed
     */
    SnapshotByBytes(long intervalBytes, Supplier<CompletableFuture<?>> request) {
        if (intervalBytes <= 0) {
            throw new IllegalArgumentException("snapshot interval must be positive, got " + intervalBytes);
        }
        this.intervalBytes = intervalBytes;
        this.request = request;
    }

    /** Never asks: Ratis's count of entries alone triggers snapshots. */
    static SnapshotByBytes never() {
        return new SnapshotByBytes(Long.MAX_VALUE, null);
    }

    /** Counts an applied entry's bytes; asks for a snapshot once the interval is reached and none is asked yet. */
    void onApplied(long entryBytes) {
        if (request == null) {
            return;
        }
        // Saturating at the interval: the count never overflows however long no snapshot comes.
        bytesSinceSnapshot = entryBytes >= intervalBytes - bytesSinceSnapshot ? intervalBytes
                : bytesSinceSnapshot + entryBytes;
        if (bytesSinceSnapshot < intervalBytes || !requested.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<?> sent;
        try {
            sent = request.get();
        } catch (RuntimeException e) {
            requested.set(false);
            return;
        }
        // Answered (the snapshot is taken by then) or failed: either way another request may go.
        sent.whenComplete((reply, failure) -> requested.set(false));
    }

    /** A snapshot was taken (asked for or not): counting starts again. */
    void onSnapshotTaken() {
        bytesSinceSnapshot = 0;
        requested.set(false);
    }

    /** Bytes applied since the last snapshot, capped at the interval (apply thread). */
    long bytesSinceSnapshot() {
        return bytesSinceSnapshot;
    }

    /** Whether a request is outstanding. */
    boolean requested() {
        return requested.get();
    }
}
