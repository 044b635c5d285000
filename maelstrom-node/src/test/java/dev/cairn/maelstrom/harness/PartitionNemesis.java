package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maelstrom's {@code partition} nemesis (jepsen.nemesis.combined/partition-package): start-partition and
 * stop-partition alternate, each after a uniform 0 .. 2 x interval pause ({@code gen/stagger}); each start picks
 * one of the four shapes at random. The final generator heals the network.
 */
final class PartitionNemesis {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionNemesis.class);

    /** Bound on nemesis events kept for the report. */
    static final int EVENTS_MAX = 10_000;
    /** How long {@link #stop()} waits for the nemesis thread. */
    static final long STOP_WAIT_MS_MAX = 5_000;

    private final Network network;
    private final List<String> nodeIds;
    private final double intervalS;
    private final Random random;
    private final LongSupplier clockNs;
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final List<String> events = new ArrayList<>();
    private Thread thread;

    PartitionNemesis(Network network, List<String> nodeIds, double intervalS, long seed, LongSupplier clockNs) {
        this.network = network;
        this.nodeIds = List.copyOf(nodeIds);
        this.intervalS = intervalS;
        this.random = new Random(seed * 31 + 5);
        this.clockNs = clockNs;
    }

    /** Starts the schedule; no partition starts or stops after {@code endNs} (the time limit). */
    void start(long endNs) {
        thread = new Thread(() -> loop(endNs), "harness-nemesis");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(long endNs) {
        boolean partitioned = false;
        try {
            while (!stopSignal.await((long) (random.nextDouble() * 2 * intervalS * 1000), TimeUnit.MILLISECONDS)
                    && clockNs.getAsLong() < endNs) {
                if (partitioned) {
                    network.heal();
                    event("stop-partition: network healed");
                } else {
                    PartitionShape shape = PartitionShape.values()[random.nextInt(PartitionShape.values().length)];
                    Map<String, Set<String>> grudge = shape.grudge(nodeIds, random);
                    network.setGrudge(grudge);
                    event("start-partition " + shape.jepsenName() + ": " + grudge);
                }
                partitioned = !partitioned;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void event(String text) {
        String line = String.format("%.1f s %s", clockNs.getAsLong() / 1e9, text);
        LOG.info("nemesis {}", line);
        synchronized (events) {
            if (events.size() < EVENTS_MAX) {
                events.add(line);
            }
        }
    }

    /** Stops the schedule and heals the network (the final generator's stop-partition). */
    void stop() throws InterruptedException {
        stopSignal.countDown();
        if (thread != null) {
            thread.join(STOP_WAIT_MS_MAX);
        }
        network.heal();
        event("final stop-partition: network healed");
    }

    List<String> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }
}
