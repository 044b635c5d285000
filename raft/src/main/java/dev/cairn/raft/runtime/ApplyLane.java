package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * One group's committed entries applied in order on a shared pool ({@link EngineConfig#applyThreads}), so that a
 * state machine that blocks (a disk write, an fsync) holds up its own group only, not the other groups of its loop.
 * At most one pool thread works on a lane at a time; the lane counts the entries handed to it and not yet applied
 * (the leader refuses proposals past {@link #BACKLOG_MAX}).
 */
final class ApplyLane {
    /** Entries handed over and not yet applied past which the group's leader refuses proposals ({@code BUSY}). */
    static final int BACKLOG_MAX = 8192;
    private static final long IDLE_WAIT_NS = 100_000;

    private final Executor pool;
    private final Consumer<Entry> apply;
    private final Runnable afterBatch;
    private final Consumer<RuntimeException> onFailure;
    private final Queue<List<Entry>> batches = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicInteger backlog = new AtomicInteger();
    /** Set when the group left or an apply failed: nothing more is applied. */
    private volatile boolean closed;

    /**
     * @param apply applies one entry (on a pool thread)
     * @param afterBatch told after each batch (on a pool thread; it must only hand work over)
     * @param onFailure told when {@code apply} threw; the lane then stops
     */
    ApplyLane(Executor pool, Consumer<Entry> apply, Runnable afterBatch, Consumer<RuntimeException> onFailure) {
        this.pool = pool;
        this.apply = apply;
        this.afterBatch = afterBatch;
        this.onFailure = onFailure;
    }

    /** Hands committed entries over, in log order (called from the loop thread). */
    void submit(List<Entry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        backlog.addAndGet(entries.size());
        batches.add(entries);
        schedule();
    }

    private void schedule() {
        if (!closed && !batches.isEmpty() && scheduled.compareAndSet(false, true)) {
            pool.execute(this::drain);
        }
    }

    private void drain() {
        try {
            for (List<Entry> batch = batches.poll(); batch != null && !closed; batch = batches.poll()) {
                for (Entry entry : batch) {
                    if (closed) {
                        return;
                    }
                    apply.accept(entry);
                    backlog.decrementAndGet();
                }
                afterBatch.run();
            }
        } catch (RuntimeException e) {
            closed = true;
            onFailure.accept(e);
            return;
        } finally {
            scheduled.set(false);
        }
        // A batch added after the last poll and before the flag was cleared is not left behind.
        schedule();
    }

    /** Applies nothing more (the group left this engine, or the engine closes); an entry in hand is finished. */
    void close() {
        closed = true;
    }

    /** Entries handed over and not yet applied. */
    int backlog() {
        return backlog.get();
    }

    /**
     * Waits until every entry handed over is applied (the loop does before a snapshot restore, which must not run
     * beside an apply).
     */
    void awaitIdle() {
        while ((backlog.get() > 0 || scheduled.get()) && !closed) {
            LockSupport.parkNanos(IDLE_WAIT_NS);
        }
    }

    /**
     * Stops the apply threads once the loops closed their groups' lanes: each finishes the entry in hand. Not
     * interrupted unless still busy after {@code waitMs}: an interrupt would close the file channel a state machine
     * is writing.
     */
    static void shutDown(ExecutorService pool, long waitMs, String owner) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                LoggerFactory.getLogger(ApplyLane.class).warn(
                        "{}: an apply thread was still busy {} ms after the engine closed", owner, waitMs);
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pool.shutdownNow();
        }
    }
}
