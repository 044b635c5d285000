package dev.cairn.broker.raft;

import java.io.Closeable;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands commands to Raft groups on a small shared pool of threads, never on the caller's (a Netty I/O thread):
 * Ratis's submit runs the group's {@code startTransaction} and appends the entry under the group's lock, and can wait
 * on that lock or on a full log queue. Each group has a lane: its tasks run one at a time in the order they were
 * given, so batches of one producer reach a partition in the order its connection sent them, while lanes of
 * different groups run in parallel. A group that is slow to take entries holds at most one pool thread; the others
 * keep serving every other group.
 *
 * <p>Memory: the tasks waiting in lanes are requests the network layer has read and counted against the broker's
 * queued request bytes ({@code queued.max.request.bytes}); that budget, not this class, bounds them.
 */
final class SubmitLanes implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(SubmitLanes.class);
    /** Tasks one lane runs before it yields its thread to lanes waiting behind it. */
    static final int TASKS_PER_TURN_MAX = 64;
    private static final long CLOSE_WAIT_MS_MAX = 5_000;

    private final ExecutorService pool;
    private final Map<Object, Lane> lanes = new ConcurrentHashMap<>();

    SubmitLanes(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("submit threads must be at least 1, got " + threads);
        }
        AtomicInteger ids = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "cairn-raft-submit-" + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Runs {@code task} on the pool after every task given earlier for the same {@code laneKey}. */
    void execute(Object laneKey, Runnable task) {
        lanes.computeIfAbsent(laneKey, key -> new Lane()).add(task);
    }

    /** Forgets the lane of a group that is gone; tasks already queued still run. */
    void remove(Object laneKey) {
        lanes.remove(laneKey);
    }

    /** Lanes known now, for tests and gauges. */
    int laneCount() {
        return lanes.size();
    }

    @Override
    public void close() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(CLOSE_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** One group's queue; scheduled on the pool whenever it has tasks and is not already running or scheduled. */
    private final class Lane implements Runnable {
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean scheduled = new AtomicBoolean();

        void add(Runnable task) {
            tasks.add(task);
            schedule();
        }

        private void schedule() {
            if (scheduled.compareAndSet(false, true)) {
                try {
                    pool.execute(this);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    scheduled.set(false);
                    Runnable task;
                    while ((task = tasks.poll()) != null) {
                        task.run(); // the broker is closing: the task fails fast (the server is closed)
                    }
                }
            }
        }

        @Override
        public void run() {
            for (int i = 0; i < TASKS_PER_TURN_MAX; i++) {
                Runnable task = tasks.poll();
                if (task == null) {
                    break;
                }
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("a Raft submit task failed", e);
                }
            }
            scheduled.set(false);
            if (!tasks.isEmpty()) {
                schedule();
            }
        }
    }
}
