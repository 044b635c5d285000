package dev.cairn.broker.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WarningLimiterTest {
    @Test
    void oneWarningPerIntervalThenTheHeldBackCount() {
        LoggerContext context = new LoggerContext();
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.setContext(context);
        seen.start();
        Logger log = context.getLogger("limited");
        log.addAppender(seen);
        AtomicLong nowNs = new AtomicLong(5);
        WarningLimiter limiter = new WarningLimiter(log, "failed TLS handshakes", nowNs::get);

        limiter.warn("peer 2 failed its TLS handshake");
        for (int i = 0; i < 50; i++) {
            nowNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            limiter.warn("held back " + i);
        }
        nowNs.set(5 + TimeUnit.MILLISECONDS.toNanos(WarningLimiter.INTERVAL_MS));
        limiter.warn("peer 3 failed its TLS handshake");
        limiter.warn("held back again");

        assertEquals(2, seen.list.size(), seen.list.toString());
        assertEquals("peer 2 failed its TLS handshake", seen.list.get(0).getFormattedMessage());
        assertEquals("peer 3 failed its TLS handshake (50 other failed TLS handshakes held back since the last)",
                seen.list.get(1).getFormattedMessage());
        context.stop();
    }
}
