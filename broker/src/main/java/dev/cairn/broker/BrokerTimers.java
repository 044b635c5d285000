package dev.cairn.broker;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The broker's two timer threads, so that housekeeping never delays what a client is waiting for.
 * <ul>
 *   <li>{@link #requests()}, thread {@code cairn-request-timer}: deadlines clients wait on (a Fetch long poll's
 *   max wait, CreateTopics and CreatePartitions waiting for leaders) and group session and rebalance expiry. Its
 *   tasks are short and never block.</li>
 *   <li>{@link #maintenance()}, thread {@code cairn-maintenance}: jobs that walk every hosted partition
 *   (in-sync replica and liveness publishing, preferred-leader balancing, retention). Their cost grows with
 *   the partition count; on the request timer, a broker with thousands of partitions delayed every fetch
 *   wake-up and session expiry behind them.</li>
 * </ul>
 */
final class BrokerTimers implements AutoCloseable {
    private final ScheduledExecutorService requests = singleDaemonThread("cairn-request-timer");
    private final ScheduledExecutorService maintenance = singleDaemonThread("cairn-maintenance");

    ScheduledExecutorService requests() {
        return requests;
    }

    ScheduledExecutorService maintenance() {
        return maintenance;
    }

    /** Stops both at once; scheduled and running jobs are dropped, since the broker is closing. */
    @Override
    public void close() {
        requests.shutdownNow();
        maintenance.shutdownNow();
    }

    private static ScheduledExecutorService singleDaemonThread(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
