package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Housekeeping that takes long must not hold up the deadlines clients wait on. */
class BrokerTimersTest {
    @Test
    @Timeout(30)
    void aBusyMaintenanceJobDoesNotDelayRequestDeadlines() throws Exception {
        CountDownLatch maintenanceRunning = new CountDownLatch(1);
        CountDownLatch releaseMaintenance = new CountDownLatch(1);
        CountDownLatch deadlineFired = new CountDownLatch(1);
        try (BrokerTimers timers = new BrokerTimers()) {
            timers.maintenance().execute(() -> {
                maintenanceRunning.countDown();
                try {
                    releaseMaintenance.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(maintenanceRunning.await(10, TimeUnit.SECONDS));
            timers.requests().schedule(deadlineFired::countDown, 10, TimeUnit.MILLISECONDS);

            assertTrue(deadlineFired.await(10, TimeUnit.SECONDS), "the deadline fired while maintenance ran");
            assertEquals(1, releaseMaintenance.getCount(), "maintenance was still running");
            releaseMaintenance.countDown();
        }
    }

    @Test
    void eachTimerRunsOnItsOwnNamedDaemonThread() throws Exception {
        try (BrokerTimers timers = new BrokerTimers()) {
            Thread request = timers.requests().submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
            Thread maintenance = timers.maintenance().submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
            assertEquals("cairn-request-timer", request.getName());
            assertEquals("cairn-maintenance", maintenance.getName());
            assertTrue(request.isDaemon() && maintenance.isDaemon());
        }
    }
}
