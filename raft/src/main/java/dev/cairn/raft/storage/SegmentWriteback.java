package dev.cairn.raft.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Writes the active segment of a {@link RaftWal} back to the device in the background while it fills, when syncs do
 * not force it (fsync off). A segment is forced whole before the next one starts, so that a machine crash cannot
 * leave a hole before later records; without this, that force found up to a whole segment (64 MiB) of dirty pages and
 * held the engine's loop, and every group on it, for the writeback (up to 120 ms seen under produce load). With it,
 * the roll's force finds at most about {@link #AHEAD_BYTES} (plus what arrived during the last background force).
 *
 * <p>Nothing depends on a background force for correctness: the roll's own force still orders the segments, and a
 * background force that fails is left for that force to report. At most one force is in flight; its thread is started
 * at the first one (a log that never holds {@link #AHEAD_BYTES} unforced, as in most tests, starts none) and never
 * interrupted, since an interrupt would close the segment's channel under the log. Used by the log's own thread only.
 */
final class SegmentWriteback implements AutoCloseable {
    /** Unforced bytes in the active segment that start a background force. */
    static final long AHEAD_BYTES = 8L * 1024 * 1024;

    private final String threadName;
    private ExecutorService thread;
    private Future<?> inFlight;
    private long unforcedBytes;
    private long forcesStarted;

    SegmentWriteback(String threadName) {
        this.threadName = threadName;
    }

    /** {@code bytes} were written to {@code segment} and not forced: start a background force past the threshold. */
    void onWritten(FileChannel segment, long bytes) {
        unforcedBytes += bytes;
        if (unforcedBytes < AHEAD_BYTES || (inFlight != null && !inFlight.isDone())) {
            return;
        }
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(task -> {
                Thread writer = new Thread(task, threadName);
                writer.setDaemon(true);
                return writer;
            });
        }
        unforcedBytes = 0;
        forcesStarted++;
        inFlight = thread.submit(() -> {
            try {
                segment.force(false);
            } catch (IOException failed) {
                // The roll's force (or the next sync's) meets the same failure and reports it.
            }
        });
    }

    /** The segment was just forced by the log itself: nothing of it is waiting. */
    void onForced() {
        unforcedBytes = 0;
    }

    /** Waits for a background force in flight: the log is about to force and close the segment. */
    void awaitQuiet() {
        if (inFlight == null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                inFlight.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException unexpected) {
                break; // The task catches what force throws; nothing else can come out of it.
            }
        }
        inFlight = null;
        unforcedBytes = 0;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Background forces started so far (for tests and benchmarks). */
    long forcesStarted() {
        return forcesStarted;
    }

    @Override
    public void close() {
        awaitQuiet();
        if (thread != null) {
            thread.shutdown();
            try {
                thread.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
