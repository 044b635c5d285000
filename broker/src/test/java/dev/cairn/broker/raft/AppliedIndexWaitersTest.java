package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AppliedIndexWaitersTest {
    @Test
    void aWaiterCompletesWhenItsIndexIsAppliedAndNotBefore() throws Exception {
        AppliedIndexWaiters waiters = new AppliedIndexWaiters(60_000);
        CompletableFuture<Void> at5 = waiters.await(5);
        CompletableFuture<Void> at7 = waiters.await(7);
        waiters.applied(4);
        assertFalse(at5.isDone());
        waiters.applied(6);
        at5.get(10, TimeUnit.SECONDS);
        assertFalse(at7.isDone());
        waiters.applied(9);
        at7.get(10, TimeUnit.SECONDS);
        assertTrue(waiters.await(8).isDone(), "an index already applied completes at once");
    }

    @Test
    void aWaitEndsAfterItsBoundEvenIfTheIndexIsNeverApplied() throws Exception {
        AppliedIndexWaiters waiters = new AppliedIndexWaiters(50);
        waiters.await(100).get(10, TimeUnit.SECONDS);
    }

    @Test
    void closingReleasesEveryWaiter() throws Exception {
        AppliedIndexWaiters waiters = new AppliedIndexWaiters(60_000);
        CompletableFuture<Void> waiting = waiters.await(3);
        waiters.releaseAll();
        waiting.get(10, TimeUnit.SECONDS);
    }
}
