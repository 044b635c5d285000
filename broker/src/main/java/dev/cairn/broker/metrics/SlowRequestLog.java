package dev.cairn.broker.metrics;

import dev.cairn.broker.api.RequestContext;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.FetchRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a request that took {@link #SLOW_MS} or longer to answer, beyond any wait the request itself asks for (a
 * Fetch's max wait), naming its API, client and connection, so that an operator (or a test's log) can tell which
 * requests a client timed out on. At most {@link #LINES_PER_SECOND_MAX} lines a second; the ones left out are
 * counted in the next line written.
 */
final class SlowRequestLog {
    private static final Logger LOG = LoggerFactory.getLogger(SlowRequestLog.class);
    /** A request this slow is logged: half of the 10 s that clients without a timeout field (franz-go) wait. */
    static final long SLOW_MS = 5_000;
    static final int LINES_PER_SECOND_MAX = 10;

    private final AtomicLong windowSecond = new AtomicLong();
    private final AtomicLong linesInWindow = new AtomicLong();
    private final AtomicLong leftOut = new AtomicLong();

    /** Logs the request when it was slow and the rate allows; returns whether it wrote a line. */
    boolean record(RequestContext context, RequestFrame request, long elapsedNanos) {
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(elapsedNanos);
        long askedWaitMs = request.apiKey() == ApiKey.FETCH
                ? Math.max(0, request.body().get(FetchRequest.MAX_WAIT_MS)) : 0;
        if (elapsedMs < SLOW_MS + askedWaitMs) {
            return false;
        }
        long second = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime());
        long window = windowSecond.get();
        if (window != second && windowSecond.compareAndSet(window, second)) {
            linesInWindow.set(0);
        }
        if (linesInWindow.incrementAndGet() > LINES_PER_SECOND_MAX) {
            leftOut.incrementAndGet();
            return false;
        }
        long skipped = leftOut.getAndSet(0);
        LOG.warn("{} v{} from {} (client {}, connection {}, correlation id {}) took {} ms{}", request.apiKey(),
                request.apiVersion(), context.clientAddress(), request.header().clientId(), context.connectionId(),
                request.header().correlationId(), elapsedMs,
                skipped == 0 ? "" : " (" + skipped + " more slow requests not logged)");
        return true;
    }
}
