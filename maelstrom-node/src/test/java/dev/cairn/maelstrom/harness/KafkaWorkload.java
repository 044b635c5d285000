package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives Maelstrom's kafka workload: {@code concurrency} worker threads, worker {@code w} bound to node
 * {@code n(w mod N)} like Jepsen's threads, each owning one open client. Any info completion (timeout,
 * indefinite error, malformed reply, crash op) closes the client and opens a new one with a new {@code cN} id
 * as the next process of that worker ({@code process + concurrency}). Operations are paced to the target rate
 * with Jepsen's stagger (uniform 0 .. 2/rate between ops, emitted as soon as a worker is free).
 */
final class KafkaWorkload {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaWorkload.class);

    /** Mean pause between final polls ({@code gen/stagger 1/5}). */
    static final double FINAL_POLL_STAGGER_S = 0.2;
    /**
     * How long the harness waits for a worker thread beyond its phase's deadline, on top of two RPC timeouts
     * (a poll and its commit_offsets); Jepsen waits for every op to complete.
     */
    static final long WORKER_JOIN_SLACK_MS = 2_000;

    private final HarnessConfig config;
    private final Network network;
    private final List<String> nodeIds;
    private final History history;
    private final LongSupplier clockNs;
    private final KafkaOpGenerator generator;
    private final Random pacingRandom;
    private long nextSlotNs;
    private final AtomicReference<RuntimeException> workerFailure = new AtomicReference<>();
    private final int[] processOfWorker;

    KafkaWorkload(HarnessConfig config, Network network, List<String> nodeIds, History history, LongSupplier clockNs) {
        this.config = config;
        this.network = network;
        this.nodeIds = List.copyOf(nodeIds);
        this.history = history;
        this.clockNs = clockNs;
        this.generator = new KafkaOpGenerator(config.keyCount(), config.maxWritesPerKey(), config.concurrency(),
            new Random(config.seed() * 31 + 7));
        this.pacingRandom = new Random(config.seed() * 31 + 11);
        this.processOfWorker = new int[config.concurrency()];
        for (int worker = 0; worker < processOfWorker.length; worker++) {
            processOfWorker[worker] = worker;
        }
    }

    private KafkaSession open(int worker) {
        String node = nodeIds.get(worker % nodeIds.size());
        return new KafkaSession(processOfWorker[worker], new RpcClient(network, node, config.rpcTimeoutMs()),
            clockNs);
    }

    private KafkaSession reopen(int worker, KafkaSession session) {
        session.close();
        processOfWorker[worker] += config.concurrency();
        return open(worker);
    }

    /** Reserves the next op slot (ns since start); a slot already past is used at once. */
    private synchronized long reserveSlot() {
        if (config.rate() <= 0) {
            return Long.MAX_VALUE;
        }
        long slot = Math.max(nextSlotNs, clockNs.getAsLong());
        nextSlotNs = slot + (long) (pacingRandom.nextDouble() * 2 * 1e9 / config.rate());
        return slot;
    }

    private void waitUntil(long timeNs) {
        long remaining;
        while ((remaining = timeNs - clockNs.getAsLong()) > 0) {
            LockSupport.parkNanos(remaining);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    private static OpFn fnOf(OpValue value) {
        if (value instanceof OpValue.Assign) {
            return OpFn.ASSIGN;
        } else if (value instanceof OpValue.Send) {
            return OpFn.SEND;
        } else if (value instanceof OpValue.Poll) {
            return OpFn.POLL;
        }
        return OpFn.CRASH;
    }

    /** Records the invocation, performs it, records and returns the completion. */
    private KafkaOp perform(KafkaSession session, OpValue value) throws InterruptedException {
        OpFn f = fnOf(value);
        history.record(new KafkaOp(0, session.process(), OpType.INVOKE, f, clockNs.getAsLong(), value, null));
        KafkaOp completion;
        if (value instanceof OpValue.Assign assign) {
            completion = session.assign(assign);
        } else if (value instanceof OpValue.Send send) {
            completion = session.send(send);
        } else if (value instanceof OpValue.Poll) {
            completion = session.poll();
        } else {
            completion = new KafkaOp(0, session.process(), OpType.INFO, OpFn.CRASH, clockNs.getAsLong(), value,
                "crash");
        }
        KafkaOp recorded = history.record(completion);
        generator.onComplete(recorded);
        return recorded;
    }

    /** Runs the main phase until {@code endNs}; operations in flight at the end complete (or time out). */
    void runMainPhase(long endNs) throws InterruptedException {
        runWorkers("main", endNs, worker -> {
            KafkaSession session = open(worker);
            try {
                while (true) {
                    long slot = reserveSlot();
                    if (slot >= endNs) {
                        break;
                    }
                    waitUntil(slot);
                    if (clockNs.getAsLong() >= endNs || Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    KafkaOp done = perform(session, generator.next(clockNs.getAsLong()));
                    if (done.type() == OpType.INFO) {
                        session = reopen(worker, session);
                    }
                }
            } finally {
                session.close();
            }
        });
    }

    /**
     * The final phase (jepsen.tests.kafka/final-polls): each worker crashes its client, assigns every key ever
     * seen with seek-to-beginning and polls about every 0.2 s until it has itself polled up to the highest
     * offset known for every key, or until {@code endNs}. An info poll reopens the client and re-assigns.
     */
    void runFinalPhase(long endNs) throws InterruptedException {
        Map<String, Long> targets = generator.maxOffsets();
        LOG.info("Polling up to offsets {}", targets);
        if (targets.isEmpty()) {
            return;
        }
        Random staggerRandom = new Random(config.seed() * 31 + 13);
        runWorkers("final", endNs, worker -> {
            KafkaSession session = open(worker);
            try {
                Map<String, Long> remaining = new TreeMap<>(targets);
                while (!remaining.isEmpty() && clockNs.getAsLong() < endNs) {
                    perform(session, new OpValue.None());
                    session = reopen(worker, session);
                    perform(session, new OpValue.Assign(new ArrayList<>(targets.keySet()), true));
                    while (!remaining.isEmpty() && clockNs.getAsLong() < endNs) {
                        double pauseS;
                        synchronized (staggerRandom) {
                            pauseS = staggerRandom.nextDouble() * 2 * FINAL_POLL_STAGGER_S;
                        }
                        waitUntil(Math.min(endNs, clockNs.getAsLong() + (long) (pauseS * 1e9)));
                        KafkaOp done = perform(session, new OpValue.Poll(null));
                        if (done.type() == OpType.OK) {
                            ((OpValue.Poll) done.value()).msgs().forEach((key, pairs) -> pairs.forEach(
                                pair -> remaining.computeIfPresent(key,
                                    (k, target) -> pair.offset() >= target ? null : target)));
                        } else if (done.type() == OpType.INFO) {
                            break;
                        }
                    }
                }
            } finally {
                session.close();
            }
        });
    }

    /** The body of one worker thread. */
    private interface WorkerBody {
        void run(int worker) throws InterruptedException;
    }

    private void runWorkers(String phase, long endNs, WorkerBody body) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int worker = 0; worker < config.concurrency(); worker++) {
            int id = worker;
            Thread thread = new Thread(() -> {
                try {
                    body.run(id);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    workerFailure.compareAndSet(null, e);
                    LOG.error("{} worker {} failed", phase, id, e);
                }
            }, "harness-" + phase + "-worker-" + worker);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        long joinDeadlineNs = endNs + (2 * config.rpcTimeoutMs() + WORKER_JOIN_SLACK_MS) * 1_000_000L;
        for (Thread thread : threads) {
            long waitMs = Math.max(1, (joinDeadlineNs - clockNs.getAsLong()) / 1_000_000);
            thread.join(waitMs);
            if (thread.isAlive()) {
                thread.interrupt();
                LOG.warn("{} did not finish by its deadline; interrupted", thread.getName());
            }
        }
        RuntimeException failure = workerFailure.get();
        if (failure != null) {
            throw new IllegalStateException(phase + " phase worker failed", failure);
        }
    }
}
