package dev.cairn.broker.net;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-wide budget of request bytes read and not yet answered ({@code queued.max.request.bytes}), shared by
 * every connection. A connection counts each request frame when it reads it and gives the bytes back when the
 * response is written (or the connection closes). While the budget is spent, a connection that reads one more frame
 * stops reading and asks to be woken ({@link #awaitRoom}); each return of bytes wakes the waiters once there is room
 * again. So at most one frame per connection goes over the budget, never an unbounded queue.
 */
final class RequestBytesBudget {
    private static final Logger LOG = LoggerFactory.getLogger(RequestBytesBudget.class);
    /** No broker-wide bound (Kafka's -1): only the per-connection in-flight limit applies. */
    static final long UNBOUNDED = -1;

    private final long bytesMax;
    private final AtomicLong used = new AtomicLong();
    private final Queue<Runnable> waiters = new ConcurrentLinkedQueue<>();

    RequestBytesBudget(long bytesMax) {
        if (bytesMax < 1 && bytesMax != UNBOUNDED) {
            throw new IllegalArgumentException("queued.max.request.bytes must be positive or -1, got " + bytesMax);
        }
        this.bytesMax = bytesMax;
    }

    /** Counts {@code bytes} of a request just read. */
    void take(long bytes) {
        used.addAndGet(bytes);
    }

    /** Gives back {@code bytes} of a request answered or dropped, and wakes waiters if there is room now. */
    void giveBack(long bytes) {
        long now = used.addAndGet(-bytes);
        if (hasRoom(now)) {
            wakeAll();
        }
    }

    /** Whether connections may read more requests now. */
    boolean hasRoom() {
        return hasRoom(used.get());
    }

    private boolean hasRoom(long usedBytes) {
        return bytesMax == UNBOUNDED || usedBytes < bytesMax;
    }

    /**
     * Runs {@code wake} once there is room: at once if there is room already, else on the thread of the
     * {@link #giveBack} that makes room (the waker must hand the work to its own thread).
     */
    void awaitRoom(Runnable wake) {
        waiters.add(wake);
        // Room may have come back between the caller's check and the add: then no giveBack will drain the queue.
        if (hasRoom()) {
            wakeAll();
        }
    }

    /**
     * Runs every waiting waker. A waker whose connection's event loop has shut down (only while the broker closes)
     * throws; that connection is going away, so the others are still woken and the caller, which only gave bytes
     * back, does not see it.
     */
    private void wakeAll() {
        Runnable waiter;
        while ((waiter = waiters.poll()) != null) {
            try {
                waiter.run();
            } catch (RejectedExecutionException closing) {
                LOG.debug("a paused connection could not be woken, its event loop has shut down: {}",
                        closing.toString());
            }
        }
    }

    /** Bytes counted now, for gauges and tests. */
    long usedBytes() {
        return used.get();
    }

    long bytesMax() {
        return bytesMax;
    }
}
