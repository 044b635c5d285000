package dev.cairn.broker.logging;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs a warning at most once per interval, saying how many were held back since the last: a peer that keeps sending
 * malformed frames, or keeps failing its TLS handshake, must not flood the log from a Netty thread. Thread-safe.
 */
public final class WarningLimiter {
    /** At most one warning this often. */
    public static final long INTERVAL_MS = 10_000;

    private final Logger log;
    private final String kind;
    private final LongSupplier nanoClock;
    private final AtomicLong nextNs;
    private final AtomicLong suppressed = new AtomicLong();

    /** @param kind what the warnings are, in the plural, for the held-back count ("RPC warnings") */
    public WarningLimiter(Logger log, String kind, LongSupplier nanoClock) {
        this.log = log;
        this.kind = kind;
        this.nanoClock = nanoClock;
        this.nextNs = new AtomicLong(nanoClock.getAsLong());
    }

    /** Logs {@code message} unless a warning was logged less than {@link #INTERVAL_MS} ago. */
    public void warn(String message) {
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
            log.warn("{} ({} other {} held back since the last)", message, held, kind);
        }
    }
}
