package dev.cairn.broker.engine.rpc;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs a warning at most once per interval, saying how many were held back since the last: a peer that keeps sending
 * malformed frames must not flood the log from a Netty thread. Thread-safe.
 */
final class WarningLimiter {
    /** At most one warning this often. */
    static final long INTERVAL_MS = 10_000;

    private final Logger log;
    private final LongSupplier nanoClock;
    private final AtomicLong nextNs;
    private final AtomicLong suppressed = new AtomicLong();

    WarningLimiter(Logger log, LongSupplier nanoClock) {
        this.log = log;
        this.nanoClock = nanoClock;
        this.nextNs = new AtomicLong(nanoClock.getAsLong());
    }

    /** Logs {@code message} unless a warning was logged less than {@link #INTERVAL_MS} ago. */
    void warn(String message) {
        long now = nanoClock.getAsLong();
        long next = nextNs.get();
        if (now - next < 0 || !nextNs.compareAndSet(next, now + TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS))) {
            suppressed.incrementAndGet();
            return;
        }
        long held = suppressed.getAndSet(0);
        if (held == 0) {
            log.warn(message);
        } else {
            log.warn("{} ({} other RPC warnings held back since the last)", message, held);
        }
    }
}
