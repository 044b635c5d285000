package dev.cairn.bench.load;

import dev.cairn.client.AdminConfig;
import dev.cairn.client.CairnAdmin;
import dev.cairn.client.CairnException;
import dev.cairn.client.NewTopic;
import dev.cairn.client.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs one {@link LoadSpec}: creates the topic, drives the producers (and consumers), and returns one
 * {@link RoleResult} per role. Every thread it starts is joined with a bounded wait.
 */
final class LoadRun {
    /** Grace on top of the run's own deadlines before a worker thread counts as hung. */
    private static final long JOIN_GRACE_MS = ProducerWorker.SEND_WAIT_MS_MAX + 10_000;

    private final LoadSpec spec;

    LoadRun(LoadSpec spec) {
        this.spec = spec;
    }

    List<RoleResult> run() throws InterruptedException {
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(spec.bootstrap())
                .clientId("cairn-load-admin").build())) {
            admin.createTopics(List.of(new NewTopic(spec.topic(), spec.partitions(), spec.replicationFactor())));
            try {
                return spec.workload() == LoadSpec.Workload.E2E ? endToEnd() : produceThenConsume(admin);
            } finally {
                deleteQuietly(admin);
            }
        }
    }

    private List<RoleResult> produceThenConsume(CairnAdmin admin) throws InterruptedException {
        LatencyRecorder produced = new LatencyRecorder();
        long startNs = System.nanoTime();
        long warmupEndNs = startNs + TimeUnit.SECONDS.toNanos(spec.warmupSec());
        long endNs = startNs + TimeUnit.SECONDS.toNanos(spec.durationSec());
        List<ProducerWorker> producers = producers(warmupEndNs, endNs, produced);
        runAll(producers, endNs);
        RoleResult produce = produced.result("produce", lastAck(producers, endNs) - warmupEndNs);
        if (spec.consumers() == 0) {
            return List.of(produce);
        }
        Map<TopicPartition, Long> latest = new LinkedHashMap<>();
        for (int p = 0; p < spec.partitions(); p++) {
            latest.put(new TopicPartition(spec.topic(), p), CairnAdmin.LATEST);
        }
        Map<TopicPartition, Long> endOffsets = admin.listOffsets(latest);
        LatencyRecorder consumed = new LatencyRecorder();
        long consumeStartNs = System.nanoTime();
        long deadlineNs = consumeStartNs + TimeUnit.SECONDS.toNanos(spec.consumeTimeoutSec());
        List<ConsumerWorker> consumers = new ArrayList<>();
        for (List<TopicPartition> share : shares()) {
            consumers.add(new ConsumerWorker(spec, share, endOffsets, () -> true, consumeStartNs, deadlineNs,
                    consumed));
        }
        runAll(consumers, deadlineNs);
        long lastNs = consumeStartNs;
        for (ConsumerWorker consumer : consumers) {
            lastNs = Math.max(lastNs, consumer.lastRecordNs());
        }
        return List.of(produce, consumed.result("consume", lastNs - consumeStartNs));
    }

    private List<RoleResult> endToEnd() throws InterruptedException {
        LatencyRecorder produced = new LatencyRecorder();
        LatencyRecorder received = new LatencyRecorder();
        long startNs = System.nanoTime();
        long warmupEndNs = startNs + TimeUnit.SECONDS.toNanos(spec.warmupSec());
        long endNs = startNs + TimeUnit.SECONDS.toNanos(spec.durationSec());
        long deadlineNs = endNs + TimeUnit.SECONDS.toNanos(spec.consumeTimeoutSec());
        List<ProducerWorker> producers = producers(warmupEndNs, endNs, produced);
        List<Thread> producerThreads = start(producers);
        BooleanSupplier caughtUp = () -> producerThreads.stream().noneMatch(Thread::isAlive)
                && received.records() >= produced.records();
        List<ConsumerWorker> consumers = new ArrayList<>();
        for (List<TopicPartition> share : shares()) {
            consumers.add(new ConsumerWorker(spec, share, null, caughtUp, warmupEndNs, deadlineNs, received));
        }
        List<Thread> consumerThreads = start(consumers);
        joinAll(producerThreads, endNs);
        joinAll(consumerThreads, deadlineNs);
        long window = lastAck(producers, endNs) - warmupEndNs;
        return List.of(produced.result("produce", window), received.result("e2e", window));
    }

    private List<ProducerWorker> producers(long warmupEndNs, long endNs, LatencyRecorder recorder) {
        List<ProducerWorker> producers = new ArrayList<>();
        for (int i = 0; i < spec.producers(); i++) {
            // Several producers each own a partition (round robin); a single one spreads over all of them.
            Integer partition = spec.producers() == 1 ? null : i % spec.partitions();
            producers.add(new ProducerWorker(spec, partition, warmupEndNs, endNs, recorder));
        }
        return producers;
    }

    /** The topic's partitions dealt round robin over the consumers; consumers beyond the partitions get none. */
    private List<List<TopicPartition>> shares() {
        int consumers = Math.min(spec.consumers(), spec.partitions());
        List<List<TopicPartition>> shares = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            shares.add(new ArrayList<>());
        }
        for (int p = 0; p < spec.partitions(); p++) {
            shares.get(p % consumers).add(new TopicPartition(spec.topic(), p));
        }
        return shares;
    }

    private static long lastAck(List<ProducerWorker> producers, long endNs) {
        long last = 0;
        for (ProducerWorker producer : producers) {
            last = Math.max(last, producer.lastAckNs());
        }
        return last == 0 ? endNs : last;
    }

    private static void runAll(List<? extends Runnable> workers, long untilNs) throws InterruptedException {
        joinAll(start(workers), untilNs);
    }

    private static List<Thread> start(List<? extends Runnable> workers) {
        List<Thread> threads = new ArrayList<>();
        int n = 0;
        for (Runnable worker : workers) {
            Thread thread = new Thread(worker, "cairn-load-" + worker.getClass().getSimpleName() + "-" + n++);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        return threads;
    }

    private static void joinAll(List<Thread> threads, long untilNs) throws InterruptedException {
        for (Thread thread : threads) {
            long waitMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(untilNs - System.nanoTime())) + JOIN_GRACE_MS;
            thread.join(waitMs);
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " still runs " + waitMs + " ms past its deadline");
            }
        }
    }

    private void deleteQuietly(CairnAdmin admin) {
        try {
            admin.deleteTopics(List.of(spec.topic()));
        } catch (CairnException failed) {
            System.err.println("load: could not delete topic " + spec.topic() + ": " + failed.getMessage());
        }
    }
}
