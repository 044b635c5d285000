package dev.cairn.jmh.raftcore;

import dev.cairn.broker.net.RaftFrameTransport;
import dev.cairn.raft.Entry;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.GroupStateMachine;
import dev.cairn.raft.runtime.RaftEngine;
import dev.cairn.raft.runtime.RaftTransport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What Cairn's multi-Raft engine ({@code dev.cairn.raft.runtime}) costs per group, measured the way issue 18 asks of
 * a broker: three replicas (three engines in this one process, wired directly, each with its own directory and
 * write-ahead logs, fsync on) hold N groups of three voters; the probe prints the time to create them, the threads,
 * the heap per group, the idle CPU once every group has gone quiet, and the throughput of 1 KiB proposals spread
 * over all the groups with the fsyncs per second that took.
 *
 * <pre>java -cp jmh/target/benchmarks.jar dev.cairn.jmh.raftcore.EngineScaleProbe [groups...] [--seconds S]</pre>
 *
 * Engine-level figures: no Kafka protocol, no network stack, no partition log; the broker's own figures come from
 * bench/partition-scale.sh once the broker runs on this engine.
 */
public final class EngineScaleProbe {
    private static final int REPLICAS = 3;
    private static final int PAYLOAD_BYTES = 1024;
    private static final int IN_FLIGHT = 256;
    private static final long WAIT_MS_MAX = 120_000;

    private EngineScaleProbe() {
    }

    /** Counts applied entries; keeps nothing else. */
    private static final class CountingMachine implements GroupStateMachine {
        final AtomicLong applied;

        CountingMachine(AtomicLong applied) {
            this.applied = applied;
        }

        @Override
        public long appliedIndex() {
            return 0;
        }

        @Override
        public Object apply(Entry entry) {
            applied.incrementAndGet();
            return entry.raftIndex();
        }
    }

    public static void main(String[] args) throws Exception {
        List<Integer> counts = new ArrayList<>();
        long seconds = 10;
        boolean tcp = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--tcp")) {
                tcp = true;
            } else if (args[i].equals("--seconds")) {
                seconds = Long.parseLong(args[++i]);
            } else {
                counts.add(Integer.parseInt(args[i]));
            }
        }
        if (counts.isEmpty()) {
            counts = List.of(10, 100, 1000, 3000);
        }
        System.out.printf("%-7s %9s %8s %12s %14s %12s %11s %9s%n", "groups", "create_ms", "threads",
                "heap_KiB/grp", "idle_cpu_%core", "entries/s", "MiB/s", "fsyncs/s");
        System.out.println("# engines wired " + (tcp ? "over RaftFrameTransport on loopback" : "directly"));
        for (int groups : counts) {
            run(groups, seconds, tcp);
        }
    }

    private static void run(int groups, long seconds, boolean tcp) throws Exception {
        Path root = Files.createTempDirectory("engine-scale");
        Map<Integer, RaftEngine> engines = new ConcurrentHashMap<>();
        Map<Integer, Integer> leaders = new ConcurrentHashMap<>();
        AtomicLong messageFrames = new AtomicLong();
        AtomicLong applied = new AtomicLong();
        Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
        List<RaftFrameTransport> sockets = new ArrayList<>();
        try {
            for (int replica = 1; replica <= REPLICAS; replica++) {
                int self = replica;
                RaftTransport direct = (peer, frame) -> {
                    RaftEngine target = engines.get(peer);
                    if (target != null) {
                        if (frame.getInt(frame.position() + 8) > 0) {
                            messageFrames.incrementAndGet();
                        }
                        target.deliver(ByteBuffer.allocate(frame.remaining()).put(frame.duplicate()).flip());
                    }
                };
                RaftTransport transport = direct;
                if (tcp) {
                    RaftFrameTransport socket = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                            addresses::get, frame -> {
                                if (frame.getInt(8) > 0) {
                                    messageFrames.incrementAndGet();
                                }
                                RaftEngine engine = engines.get(self);
                                if (engine != null) {
                                    engine.deliver(frame);
                                }
                            }, 1);
                    addresses.put(replica, new InetSocketAddress("127.0.0.1", socket.port()));
                    sockets.add(socket);
                    transport = socket;
                }
                engines.put(replica, RaftEngine.start(EngineConfig.defaults(replica), root.resolve("r" + replica),
                        transport, (group, leader, term, serving) -> {
                            if (serving) {
                                leaders.put(group, self);
                            } else if (leaders.getOrDefault(group, 0) == self) {
                                leaders.remove(group, self);
                            }
                        }, cause -> System.err.println("engine " + self + " failed: " + cause)));
            }
            long started = System.nanoTime();
            List<CompletableFuture<Void>> created = new ArrayList<>();
            List<Integer> voters = List.of(1, 2, 3);
            for (int group = 0; group < groups; group++) {
                for (RaftEngine engine : engines.values()) {
                    created.add(engine.createGroup(group, voters, new CountingMachine(applied)));
                }
            }
            CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get(WAIT_MS_MAX, TimeUnit.MILLISECONDS);
            waitFor(() -> leaders.size() == groups, "every group has a leader");
            long createMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            waitFor(() -> quietFor(messageFrames, 1_000), "every group went quiet");
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            long heapBytes = runtime.totalMemory() - runtime.freeMemory();
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpuBefore = os.getProcessCpuTime();
            long wallBefore = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds);
            double idleCpu = 100.0 * (os.getProcessCpuTime() - cpuBefore) / (System.nanoTime() - wallBefore);
            double[] load = produce(engines, leaders, groups, seconds);
            System.out.printf("%-7d %9d %8d %12.1f %14.2f %12.0f %11.1f %9.0f%n", groups, createMs, threads,
                    heapBytes / 1024.0 / groups, idleCpu, load[0], load[0] * PAYLOAD_BYTES / (1 << 20), load[1]);
        } finally {
            engines.values().forEach(RaftEngine::close);
            sockets.forEach(RaftFrameTransport::close);
            try (Stream<Path> paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /** Proposals of 1 KiB, IN_FLIGHT at a time, to the groups in turn through their leaders: entries/s, fsyncs/s. */
    private static double[] produce(Map<Integer, RaftEngine> engines, Map<Integer, Integer> leaders, int groups,
            long seconds) throws InterruptedException {
        byte[] payload = new byte[PAYLOAD_BYTES];
        Semaphore window = new Semaphore(IN_FLIGHT);
        AtomicLong done = new AtomicLong();
        long syncsBefore = engines.values().stream().mapToLong(RaftEngine::logSyncs).sum();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (int i = 0; System.nanoTime() < end; i++) {
            int group = i % groups;
            RaftEngine leader = engines.get(leaders.getOrDefault(group, 1));
            window.acquire();
            leader.propose(group, payload).whenComplete((result, failure) -> {
                if (failure == null) {
                    done.incrementAndGet();
                }
                window.release();
            });
        }
        window.acquire(IN_FLIGHT);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long syncs = engines.values().stream().mapToLong(RaftEngine::logSyncs).sum() - syncsBefore;
        return new double[] {done.get() / elapsed, syncs / elapsed / REPLICAS};
    }

    private static boolean quietFor(AtomicLong messageFrames, long millis) {
        long before = messageFrames.get();
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return messageFrames.get() == before;
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, String what) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("not within " + WAIT_MS_MAX + " ms: " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting: " + what, e);
            }
        }
    }
}
