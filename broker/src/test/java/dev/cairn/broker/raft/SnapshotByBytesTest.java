package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class SnapshotByBytesTest {
    private final List<CompletableFuture<Object>> sent = new ArrayList<>();
    private final SnapshotByBytes trigger = new SnapshotByBytes(1000, () -> {
        CompletableFuture<Object> request = new CompletableFuture<>();
        sent.add(request);
        return request;
    });

    @Test
    void asksOnceTheIntervalIsReachedAndNotBefore() {
        trigger.onApplied(600);
        assertEquals(0, sent.size());
        trigger.onApplied(399);
        assertEquals(0, sent.size());
        trigger.onApplied(1);
        assertEquals(1, sent.size());
        assertTrue(trigger.requested());
    }

    @Test
    void oneRequestOutstandingAtATime() {
        trigger.onApplied(5000);
        trigger.onApplied(5000);
        trigger.onApplied(5000);
        assertEquals(1, sent.size());
    }

    @Test
    void snapshotStartsCountingAgain() {
        trigger.onApplied(1000);
        trigger.onSnapshotTaken();
        sent.get(0).complete("reply");
        assertEquals(0, trigger.bytesSinceSnapshot());
        assertFalse(trigger.requested());
        trigger.onApplied(999);
        assertEquals(1, sent.size());
        trigger.onApplied(1);
        assertEquals(2, sent.size());
    }

    @Test
    void aFailedRequestIsAskedAgainAtTheNextEntry() {
        trigger.onApplied(1000);
        sent.get(0).completeExceptionally(new IllegalStateException("installing a snapshot"));
        assertFalse(trigger.requested());
        trigger.onApplied(1);
        assertEquals(2, sent.size(), "the count is still past the interval, so the next entry asks again");
    }

    @Test
    void aRequestThatThrowsDoesNotStopLaterOnes() {
        int[] calls = {0};
        SnapshotByBytes throwing = new SnapshotByBytes(10, () -> {
            calls[0]++;
            throw new IllegalStateException("closed");
        });
        throwing.onApplied(10);
        throwing.onApplied(10);
        assertEquals(2, calls[0]);
    }

    @Test
    void theCountIsCappedSoItNeverOverflows() {
        trigger.onApplied(Long.MAX_VALUE);
        trigger.onApplied(Long.MAX_VALUE);
        assertEquals(1000, trigger.bytesSinceSnapshot());
        assertEquals(1, sent.size());
    }

    @Test
    void neverAsks() {
        SnapshotByBytes never = SnapshotByBytes.never();
        never.onApplied(Long.MAX_VALUE);
        never.onApplied(Long.MAX_VALUE);
        assertFalse(never.requested());
    }

    @Test
    void refusesANonPositiveInterval() {
        assertThrows(IllegalArgumentException.class, () -> new SnapshotByBytes(0, CompletableFuture::new));
    }
}
