package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link SubmitLanes}: order within a lane, independence between lanes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubmitLanesTest {

    @Test
    void tasksOfOneLaneRunOneAtATimeInOrder() throws Exception {
        try (SubmitLanes lanes = new SubmitLanes(4)) {
            List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
            int[] running = {0};
            boolean[] overlapped = {false};
            int count = SubmitLanes.TASKS_PER_TURN_MAX * 5;
            CountDownLatch done = new CountDownLatch(count);
            for (int i = 0; i < count; i++) {
                int n = i;
                lanes.execute("lane", () -> {
                    synchronized (running) {
                        overlapped[0] |= ++running[0] > 1;
                    }
                    seen.add(n);
                    synchronized (running) {
                        running[0]--;
                    }
                    done.countDown();
                });
            }
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertFalse(overlapped[0], "two tasks of one lane ran at once");
            for (int i = 0; i < count; i++) {
                assertEquals(i, seen.get(i));
            }
        }
    }

    @Test
    void aBlockedLaneHoldsOneThreadAndOtherLanesGoOn() throws Exception {
        try (SubmitLanes lanes = new SubmitLanes(2)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blockedStarted = new CountDownLatch(1);
            CountDownLatch afterBlocked = new CountDownLatch(1);
            lanes.execute("slow", () -> {
                blockedStarted.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            lanes.execute("slow", afterBlocked::countDown);
            assertTrue(blockedStarted.await(30, TimeUnit.SECONDS));
            CountDownLatch others = new CountDownLatch(100);
            for (int i = 0; i < 100; i++) {
                lanes.execute("lane-" + (i % 10), others::countDown);
            }
            assertTrue(others.await(30, TimeUnit.SECONDS), "other lanes ran while one was blocked");
            assertEquals(1, afterBlocked.getCount(), "the blocked lane's next task waits its turn");
            release.countDown();
            assertTrue(afterBlocked.await(30, TimeUnit.SECONDS));
            lanes.remove("slow");
            assertEquals(10, lanes.laneCount());
        }
    }

    @Test
    void refusesAPoolWithoutThreads() {
        assertThrows(IllegalArgumentException.class, () -> new SubmitLanes(0));
    }
}
