package dev.cairn.broker.raft;

import dev.cairn.broker.replica.GapFiller;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition group's {@link StateMachine.DataApi}: where Ratis hands the batch of each placed entry (the write-once
 * path, docs/write-path.md). Ratis calls {@link #write} on every replica as it appends an entry with a batch, in log
 * order; {@link #read} for a follower whose entries left its cache; {@link #flush} before it counts entries as
 * flushed; {@link #truncate} when it cuts its log.
 */
final class PlacedBatchData implements StateMachine.DataApi {
    private static final Logger LOG = LoggerFactory.getLogger(PlacedBatchData.class);
    /**
     * How long a write waits for the log to reach its placement while the log does not grow at all. Longer than
     * {@link GapFiller#STALL_MAX_MS}, so a filler that gives up takes the partition offline (and fails the wait) first;
     * past it the write fails, and Ratis stops this group's Raft log on this replica until a restart.
     */
    static final long GAP_STALL_MAX_MS = GapFiller.STALL_MAX_MS + 60_000;
    /** How often a waiting write looks at whether the log grew. */
    static final long GAP_CHECK_MS = 5_000;

    /** The partition, or null while it is not there or offline. */
    private final Supplier<Partition> partition;
    private final boolean fsyncBeforeAck;
    /**
     * Completes when a snapshot installation that paused the machine is in place: Ratis appends the leader's next
     * entries while its apply thread has yet to install it, and their batches must go after the snapshot's.
     */
    private volatile CompletableFuture<Void> installing = CompletableFuture.completedFuture(null);
    /** The last write that waited (for an installation, or for a gap to be filled); later writes follow it. */
    private CompletableFuture<Void> deferredWrites = CompletableFuture.completedFuture(null);
    /** A write waiting for the log to reach its placement, and that offset; null when none waits. */
    private CompletableFuture<Void> gapWaiter;
    private long gapWaiterOffset;
    /** The log end offset when the waiting write last saw the log grow, and when that was (nanoTime). */
    private long gapWaiterSeenEnd;
    private long gapWaiterSeenAtNanos;
    private final long gapStallMaxNanos;
    private final Executor gapChecks;

    PlacedBatchData(Supplier<Partition> partition, boolean fsyncBeforeAck) {
        this(partition, fsyncBeforeAck, GAP_STALL_MAX_MS,
                CompletableFuture.delayedExecutor(GAP_CHECK_MS, TimeUnit.MILLISECONDS));
    }

    /** @param gapChecks runs each look at a waiting write, some time after it is handed one */
    PlacedBatchData(Supplier<Partition> partition, boolean fsyncBeforeAck, long gapStallMaxMs, Executor gapChecks) {
        this.partition = partition;
        this.fsyncBeforeAck = fsyncBeforeAck;
        this.gapStallMaxNanos = TimeUnit.MILLISECONDS.toNanos(gapStallMaxMs);
        this.gapChecks = gapChecks;
    }

    /** Ratis paused the machine to install a snapshot: writes wait for {@link #installFinished()}. */
    void installStarted() {
        installing = new CompletableFuture<>();
    }

    void installFinished() {
        installing.complete(null);
        logGrew();
    }

    /**
     * The partition's log grew outside Raft's appends (batches copied from the leader into a gap, an installed
     * snapshot): a write waiting for its placement's offset may go on.
     */
    void logGrew() {
        CompletableFuture<Void> waiter;
        synchronized (this) {
            Partition p = partition.get();
            if (gapWaiter == null || p == null || p.logEndOffset() < gapWaiterOffset) {
                return;
            }
            waiter = gapWaiter;
            gapWaiter = null;
        }
        waiter.complete(null);
    }

    /** The partition went offline: a write waiting for a gap to be filled fails (Ratis then fails the log). */
    void failWaiting(Throwable cause) {
        CompletableFuture<Void> waiter;
        synchronized (this) {
            waiter = gapWaiter;
            gapWaiter = null;
        }
        if (waiter != null) {
            waiter.completeExceptionally(cause);
        }
    }

    /**
     * Completes once the log reaches {@code offset}: after a restart, batches of entries this replica logged but
     * lost (unflushed when the machine went down) are copied back from the leader as those entries apply, while the
     * leader already sends newer ones. Only one write waits at a time: the later ones wait behind it.
     */
    private synchronized CompletableFuture<Void> logReaches(long offset) {
        Partition p = partition.get();
        if (p == null || p.logEndOffset() >= offset) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> waiter = new CompletableFuture<>();
        gapWaiter = waiter;
        gapWaiterOffset = offset;
        gapWaiterSeenEnd = p.logEndOffset();
        gapWaiterSeenAtNanos = System.nanoTime();
        gapChecks.execute(() -> checkStalled(waiter));
        return waiter;
    }

    /** Fails {@code waiter} when the log has not grown for the stall limit; otherwise looks again later. */
    private void checkStalled(CompletableFuture<Void> waiter) {
        String stalled;
        synchronized (this) {
            if (waiter != gapWaiter || waiter.isDone()) {
                return;   // it went on (or failed) meanwhile: this check ends
            }
            Partition p = partition.get();
            long end = p == null ? gapWaiterSeenEnd : p.logEndOffset();
            long now = System.nanoTime();
            if (end != gapWaiterSeenEnd) {
                gapWaiterSeenEnd = end;
                gapWaiterSeenAtNanos = now;
            }
            if (now - gapWaiterSeenAtNanos < gapStallMaxNanos) {
                gapChecks.execute(() -> checkStalled(waiter));
                return;
            }
            gapWaiter = null;
            stalled = p + ": the log stayed at offset " + end + " for "
                    + TimeUnit.NANOSECONDS.toMillis(gapStallMaxNanos) + " ms while a batch waited to be written at "
                    + "offset " + gapWaiterOffset;
        }
        LOG.error("{}; the write fails", stalled);
        waiter.completeExceptionally(new TimeoutException(stalled));
    }

    /** The batch goes into the segment at its placed offset; after an installation in progress, if there is one. */
    @Override
    public CompletableFuture<?> write(LogEntryProto entry, TransactionContext context) {
        if (!(WriteOncePath.commandOf(context, entry.getStateMachineLogEntry()) instanceof Command.AppendAt at)) {
            return CompletableFuture.completedFuture(null);
        }
        synchronized (this) {
            Partition p = partition.get();
            boolean gap = p != null && p.logEndOffset() < at.baseOffset();
            if (!installing.isDone() || !deferredWrites.isDone() || gap) {
                if (gap && deferredWrites.isDone()) {
                    LOG.info("{}: the batch of Raft entry {} goes at offset {}, the log ends at {}: waiting for the "
                            + "log to reach it (a snapshot being installed, or batches copied from the leader)", p,
                            entry.getIndex(), at.baseOffset(), p.logEndOffset());
                }
                deferredWrites = CompletableFuture.allOf(installing, deferredWrites)
                        .thenCompose(ready -> logReaches(at.baseOffset())).thenRun(() -> place(entry, at));
                return deferredWrites;
            }
        }
        try {
            place(entry, at);
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void place(LogEntryProto entry, Command.AppendAt at) {
        Partition p = partition.get();
        if (p == null) {
            throw new IllegalStateException("the partition is offline: the batch of Raft entry " + entry.getIndex()
                    + " is not written");
        }
        try {
            p.placements().place(at, WriteOncePath.dataOf(entry), (int) entry.getTerm());
        } catch (RuntimeException e) {
            LOG.error("{}: writing the batch of Raft entry {} failed", p, entry.getIndex(), e);
            throw e;
        }
    }

    /** The batch read back from the segment (base offset and epoch as stamped there). */
    @Override
    public CompletableFuture<ByteString> read(LogEntryProto entry, TransactionContext context) {
        Partition p = partition.get();
        try {
            if (p != null && WriteOncePath.decode(entry.getStateMachineLogEntry()) instanceof Command.AppendAt at) {
                ByteBuffer batch = p.placements().readPlaced(at);
                return CompletableFuture.completedFuture(UnsafeByteOperations.unsafeWrap(batch));
            }
            return CompletableFuture.failedFuture(new ReadBackException("Raft entry " + entry.getIndex()
                    + " of " + p + " has no batch to read", null));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new ReadBackException("reading back the batch of Raft entry "
                    + entry.getIndex() + " of " + p + " failed: " + e.getMessage(), e));
        }
    }

    /** Whether {@code failure} is (or was caused by) a failed {@link #read}, which leaves the Raft log running. */
    static boolean isReadBackFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ReadBackException) {
                return true;
            }
        }
        return false;
    }

    /** A batch could not be read back for a follower behind Raft's cache. */
    static final class ReadBackException extends StateMachineException {
        private static final long serialVersionUID = 1L;

        ReadBackException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Forces the segments when every acknowledged write is fsynced ({@code log.flush.interval.messages=1}). */
    @Override
    public CompletableFuture<Void> flush(long logIndex) {
        Partition p = partition.get();
        if (fsyncBeforeAck && p != null) {
            try {
                p.flush();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Raft cut its log from {@code index} (the first entry removed). The batches those entries placed are left in the
     * segment, above the high watermark where no reader looks: the next placement cuts them (PlacedBatches.place).
     */
    @Override
    public CompletableFuture<Void> truncate(long index) {
        return CompletableFuture.completedFuture(null);
    }
}
