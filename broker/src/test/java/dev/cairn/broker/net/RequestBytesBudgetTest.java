package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The broker-wide request-bytes budget: waiters are woken once room comes back, each once. */
class RequestBytesBudgetTest {
    @Test
    void waitersWakeOnceThereIsRoomAgain() {
        RequestBytesBudget budget = new RequestBytesBudget(10);
        AtomicInteger woken = new AtomicInteger();
        budget.take(10);
        assertFalse(budget.hasRoom());
        budget.awaitRoom(woken::incrementAndGet);
        assertEquals(0, woken.get(), "no room yet");
        budget.giveBack(1);
        assertEquals(1, woken.get());
        budget.giveBack(9);
        assertEquals(1, woken.get(), "a waiter is woken once");
        assertEquals(0, budget.usedBytes());
    }

    /** A connection whose event loop has shut down (the broker is closing) must not stop the others' wake-up. */
    @Test
    void aWakerWhoseEventLoopIsGoneDoesNotStopTheOthersOrTheCaller() {
        RequestBytesBudget budget = new RequestBytesBudget(10);
        AtomicInteger woken = new AtomicInteger();
        budget.take(10);
        budget.awaitRoom(() -> {
            throw new RejectedExecutionException("event executor terminated");
        });
        budget.awaitRoom(woken::incrementAndGet);
        budget.giveBack(10);
        assertEquals(1, woken.get());
        assertTrue(budget.hasRoom());
    }
}
