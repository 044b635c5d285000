package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A close step is waited for at most its bound; one that overruns goes on in the background (issue 16 item 10). */
class BoundedCloseTest {
    @Test
    @Timeout(10)
    void aStepThatFinishesInTimeIsDoneAndAFailedOneToo() {
        assertTrue(BoundedClose.run("quick", () -> { }, 1_000));
        assertTrue(BoundedClose.run("failing", () -> {
            throw new IOException("disk gone");
        }, 1_000), "a failed step has ended: nothing is left to wait for");
    }

    @Test
    @Timeout(10)
    void aStepThatOverrunsItsBoundIsLeftRunningAndTheWaitEnds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        long startNanos = System.nanoTime();
        boolean done = BoundedClose.run("stuck", () -> {
            release.await();
            ended.countDown();
        }, 200);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        assertFalse(done);
        assertTrue(waitedMs >= 200 && waitedMs < 2_000, "waited " + waitedMs + " ms");
        release.countDown();
        assertTrue(ended.await(5, TimeUnit.SECONDS), "the step went on in the background");
    }

    @Test
    @Timeout(10)
    void stepsStartedTogetherShareOneBound() {
        CountDownLatch never = new CountDownLatch(1);
        List<BoundedClose> steps = List.of(
                BoundedClose.start("stuck 1", never::await),
                BoundedClose.start("quick", () -> { }),
                BoundedClose.start("stuck 2", never::await));
        long startNanos = System.nanoTime();
        assertEquals(2, BoundedClose.awaitAll("steps", steps, 300));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        assertTrue(waitedMs < 2_000, "one bound for all, not one each: waited " + waitedMs + " ms");
        never.countDown();
    }
}
