package dev.cairn.broker.engine;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the engine's partitions snapshot, so that the engine can drop their entries. Until a group compacts, the
 * engine keeps every entry since its last snapshot in heap, and the shared log keeps every segment holding one of
 * them, so one thread looks every {@link #CHECK_MS}: a partition snapshots once {@code raft.snapshot.interval.bytes}
 * or {@code .entries} were applied since its last snapshot, once its oldest such entry is {@link #AGE_MS_MAX} old (an
 * idle partition would otherwise pin every later log segment), and, largest first, while all partitions together
 * hold more than {@link #heapBudgetBytes}.
 */
final class EngineCompaction implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineCompaction.class);
    static final long CHECK_MS = 1_000;
    /** The longest an applied entry waits for a snapshot: what bounds the shared log on disk, by time. */
    static final long AGE_MS_MAX = 60_000;
    /** The least heap budget, for a small -Xmx. */
    static final long HEAP_BUDGET_BYTES_MIN = 64L * 1024 * 1024;

    private final Supplier<Collection<EnginePartitionMachine>> machines;
    private final long intervalBytes;
    private final long intervalEntries;
    private final long heapBudgetBytes;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cairn-engine-compaction");
        t.setDaemon(true);
        return t;
    });

    EngineCompaction(Supplier<Collection<EnginePartitionMachine>> machines, long intervalBytes,
            long intervalEntries) {
        this.machines = machines;
        this.intervalBytes = intervalBytes;
        this.intervalEntries = intervalEntries;
        this.heapBudgetBytes = heapBudgetBytes();
    }

    /** A quarter of the maximum heap, at least {@link #HEAP_BUDGET_BYTES_MIN}: entries not yet in a snapshot. */
    static long heapBudgetBytes() {
        return Math.max(HEAP_BUDGET_BYTES_MIN, Runtime.getRuntime().maxMemory() / 4);
    }

    void start() {
        thread.scheduleWithFixedDelay(this::check, CHECK_MS, CHECK_MS, TimeUnit.MILLISECONDS);
    }

    /** One pass: snapshots what is due. Runs on the compaction thread; never throws (it would stop the timer). */
    void check() {
        try {
            long now = System.nanoTime();
            // Byte counts as read once: the engine's apply threads change them meanwhile, and a sort whose keys move
            // under it breaks its contract (TimSort threw, and the pass skipped the snapshots the heap needed).
            List<Held> held = new ArrayList<>();
            long total = 0;
            for (EnginePartitionMachine machine : machines.get()) {
                machine.releaseOlderSnapshots();
                if (machine.uncompactedEntries() == 0) {
                    continue;
                }
                if (machine.snapshotDue() || machine.uncompactedBytes() >= intervalBytes
                        || machine.uncompactedEntries() >= intervalEntries
                        || now - machine.firstUncompactedNanos() >= TimeUnit.MILLISECONDS.toNanos(AGE_MS_MAX)) {
                    machine.snapshotNow();
                } else {
                    Held one = new Held(machine, machine.uncompactedBytes());
                    held.add(one);
                    total += one.bytes();
                }
            }
            if (total > heapBudgetBytes) {
                held.sort(Comparator.comparingLong(Held::bytes).reversed());
                for (Held one : held) {
                    if (total <= heapBudgetBytes / 2) {
                        break;
                    }
                    total -= one.bytes();
                    one.machine().snapshotNow();
                }
            }
        } catch (RuntimeException e) {
            LOG.error("checking which engine partitions to snapshot failed; trying again in {} ms", CHECK_MS, e);
        }
    }

    /** A partition whose entries stay in memory, with its byte count as one check read it. */
    private record Held(EnginePartitionMachine machine, long bytes) {
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
