package dev.cairn.raft.runtime;

import dev.cairn.raft.RaftConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Engines on a {@link LoopbackNetwork}, each with a directory, holding the same groups; fast clocks for tests. */
final class EngineCluster implements AutoCloseable {
    static final long TICK_MS = 20;
    final LoopbackNetwork network = new LoopbackNetwork();
    final Map<Integer, RaftEngine> engines = new ConcurrentHashMap<>();
    /** Per replica, per group: the machine its replica applies to. */
    final Map<Integer, Map<Integer, CommandMachine>> machines = new ConcurrentHashMap<>();
    /** Per group, per replica: who that replica last said serves as leader (itself, serving) or 0. */
    final Map<Integer, Map<Integer, Integer>> serving = new ConcurrentHashMap<>();
    final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Path root;
    private final int replicas;
    private final int loops;

    EngineCluster(Path root, int replicas, int loops) {
        this.root = root;
        this.replicas = replicas;
        this.loops = loops;
    }

    List<Integer> voters() {
        List<Integer> voters = new ArrayList<>();
        for (int replica = 1; replica <= replicas; replica++) {
            voters.add(replica);
        }
        return voters;
    }

    int snapshotChunkBytes = EngineConfig.SNAPSHOT_CHUNK_BYTES_DEFAULT;
    int applyThreads;

    EngineConfig config(int replica) {
        RaftConfig raft = new RaftConfig(10, 1, 20, RaftConfig.APPEND_BYTES_MAX_DEFAULT,
                RaftConfig.INFLIGHT_APPENDS_MAX_DEFAULT, RaftConfig.UNCOMMITTED_ENTRIES_MAX_DEFAULT);
        return new EngineConfig(replica, loops, TICK_MS, raft, false, 200, 50, EngineConfig.LOOP_QUEUE_MAX_DEFAULT,
                snapshotChunkBytes, applyThreads);
    }

    RaftEngine start(int replica) throws IOException {
        RaftEngine engine = RaftEngine.start(config(replica), root.resolve("replica-" + replica),
                network.transportOf(replica), (group, leader, term, isServing) -> serving
                        .computeIfAbsent(group, g -> new ConcurrentHashMap<>()).put(replica, isServing ? replica : 0),
                failures::add);
        engines.put(replica, engine);
        machines.put(replica, new ConcurrentHashMap<>());
        network.attach(replica, engine);
        return engine;
    }

    void startAll() throws IOException {
        for (int replica = 1; replica <= replicas; replica++) {
            start(replica);
        }
    }

    void createGroups(int replica, int groups) {
        createGroups(replica, groups, group -> new RecordingMachine());
    }

    void createGroups(int replica, int groups, java.util.function.IntFunction<CommandMachine> machineOf) {
        RaftEngine engine = engines.get(replica);
        for (int group = 0; group < groups; group++) {
            CommandMachine machine = machineOf.apply(group);
            machines.get(replica).put(group, machine);
            engine.createGroup(group, voters(), machine).join();
        }
    }

    /** Stops a replica's engine as a crash would look to the others: its traffic stops at once. */
    void kill(int replica) {
        network.cut(replica);
        network.detach(replica);
        engines.remove(replica).close();
        serving.values().forEach(byReplica -> byReplica.remove(replica));
        network.heal(replica);
    }

    /** The replica serving as the group's leader, or 0. */
    int leaderOf(int group) {
        Map<Integer, Integer> byReplica = serving.getOrDefault(group, Map.of());
        for (Map.Entry<Integer, Integer> entry : byReplica.entrySet()) {
            if (entry.getValue() != 0 && engines.containsKey(entry.getKey())) {
                return entry.getKey();
            }
        }
        return 0;
    }

    /** Proposes through the group's leader, retrying a refusal (a leader change) until the deadline. */
    Object proposeAnywhere(int group, String command, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        ProposalRefusedException last = null;
        while (System.nanoTime() < deadline) {
            int leader = leaderOf(group);
            if (leader != 0) {
                try {
                    return engines.get(leader).propose(group, command.getBytes(StandardCharsets.UTF_8))
                            .get(within.toMillis(), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof ProposalRefusedException refused)) {
                        throw new AssertionError(e.getCause());
                    }
                    last = refused;
                } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
                    throw new AssertionError(e);
                }
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        throw new AssertionError("no proposal to group " + group + " applied within " + within, last);
    }

    static void await(String what, Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Override
    public void close() {
        engines.values().forEach(RaftEngine::close);
        engines.clear();
    }
}
