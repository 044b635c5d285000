package dev.cairn.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.api.RequestContext;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.RequestHeader;
import dev.cairn.protocol.message.FetchRequest;
import dev.cairn.protocol.message.HeartbeatRequest;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SlowRequestLogTest {
    private static final RequestContext CONTEXT = new RequestContext(7, "127.0.0.1:5000");
    private static final long SLOW_NS = TimeUnit.MILLISECONDS.toNanos(SlowRequestLog.SLOW_MS);

    @Test
    void onlyRequestsPastTheThresholdAreLogged() {
        SlowRequestLog log = new SlowRequestLog();
        assertFalse(log.record(CONTEXT, heartbeat(), SLOW_NS - 1));
        assertTrue(log.record(CONTEXT, heartbeat(), SLOW_NS));
    }

    @Test
    void aFetchsOwnWaitIsNotSlowness() {
        SlowRequestLog log = new SlowRequestLog();
        RequestFrame fetch = new RequestFrame(new RequestHeader(ApiKey.FETCH.id(), (short) 12, 1, "c"),
                ApiKey.FETCH, new Struct(FetchRequest.SCHEMA).set(FetchRequest.MAX_WAIT_MS, 5_000));
        assertFalse(log.record(CONTEXT, fetch, SLOW_NS + TimeUnit.MILLISECONDS.toNanos(4_999)));
        assertTrue(log.record(CONTEXT, fetch, 2 * SLOW_NS));
    }

    @Test
    void atMostTheBoundOfLinesASecond() {
        SlowRequestLog log = new SlowRequestLog();
        int written = 0;
        for (int i = 0; i < 5 * SlowRequestLog.LINES_PER_SECOND_MAX; i++) {
            written += log.record(CONTEXT, heartbeat(), SLOW_NS) ? 1 : 0;
        }
        // The loop may straddle a second's boundary: at most two windows' worth.
        assertTrue(written >= SlowRequestLog.LINES_PER_SECOND_MAX
                && written <= 2 * SlowRequestLog.LINES_PER_SECOND_MAX, "written " + written);
    }

    private static RequestFrame heartbeat() {
        return new RequestFrame(new RequestHeader(ApiKey.HEARTBEAT.id(), (short) 4, 1, "c"), ApiKey.HEARTBEAT,
                new Struct(HeartbeatRequest.SCHEMA));
    }
}
