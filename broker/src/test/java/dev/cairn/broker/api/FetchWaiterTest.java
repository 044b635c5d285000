package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Parked fetches wake on an append to one of their partitions; an append while the broker closes is no error. */
class FetchWaiterTest {
    private static final TopicPartition TP = new TopicPartition("waiting", 0);

    @Test
    void anAppendWakesTheFetchesParkedOnItsPartition() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            FetchWaiter waiter = new FetchWaiter(timer);
            CompletableFuture<Void> parked = waiter.await(List.of(TP), 60_000);
            CompletableFuture<Void> elsewhere = waiter.await(List.of(new TopicPartition("other", 0)), 60_000);
            waiter.onAppend(TP);
            parked.get(10, TimeUnit.SECONDS);
            assertFalse(elsewhere.isDone());
        } finally {
            timer.shutdownNow();
        }
    }

    /** Applying goes on while the broker closes, its timers first: the apply thread must not see the refusal. */
    @Test
    void anAppendAfterTheTimerClosedIsNotAnError() {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        FetchWaiter waiter = new FetchWaiter(timer);
        waiter.await(List.of(TP), 60_000);
        timer.shutdownNow();
        assertTrue(timer.isShutdown());
        assertDoesNotThrow(() -> waiter.onAppend(TP));
    }
}
