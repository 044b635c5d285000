package dev.cairn.broker.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.raft.RaftConfig;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three engines on an in-memory transport, each applying one partition group to a real {@link Partition}. */
@Timeout(60)
class EnginePartitionMachineTest {
    private static final int GROUP = 7;
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final long WAIT_MS = 20_000;

    @TempDir
    Path root;
    private final NioFileIo io = new NioFileIo();
    private final RaftEngine[] engines = new RaftEngine[4];
    private final EnginePartitionMachine[] machines = new EnginePartitionMachine[4];
    private final Partition[] partitions = new Partition[4];
    /** Each replica's applied index when its machine opened, before the engine replayed anything into it. */
    private final long[] openedAt = new long[4];
    private final Map<Integer, Boolean> serving = new ConcurrentHashMap<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    /** Replicas cut off from the others: frames from or to them are dropped. */
    private final java.util.Set<Integer> cut = ConcurrentHashMap.newKeySet();
    /** Whether the engines fsync their logs before entries count as stored (log.flush.interval.messages=1). */
    private boolean fsync;

    @AfterEach
    void stop() {
        for (int replica = 1; replica <= 3; replica++) {
            stopReplica(replica);
        }
    }

    @Test
    void appendsCommitInOrderAndEveryReplicaHoldsTheSameBytes() throws Exception {
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        for (int i = 0; i < 40; i++) {
            Result result = (Result) appendVia(leader, 3).get(10, TimeUnit.SECONDS);
            Result.Appended appended = assertInstanceOf(Result.Appended.class, result);
            assertEquals(3L * i, appended.baseOffset());
        }
        awaitAll(120);
        assertSameSegments();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void aRestartedReplicaReplaysTheEngineLogToTheSameBytes() throws Exception {
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        for (int i = 0; i < 20; i++) {
            appendVia(leader, 2).get(10, TimeUnit.SECONDS);
        }
        awaitAll(40);
        int restarted = leader == engines[3] ? 2 : 3;
        stopReplica(restarted);
        start(restarted);
        awaitAll(40);
        assertSameSegments();
        int other = restarted == 1 ? 2 : 1;
        assertEquals(partitions[other].appliedRaftIndex(), partitions[restarted].appliedRaftIndex(),
                "the restarted replica applied the same entries again");
    }

    @Test
    void aReplicaBehindTheCompactedLogCatchesUpFromTheLeadersSnapshotInSmallChunks() throws Exception {
        startAll();
        int leaderId = awaitLeader();
        int lagging = leaderId == 3 ? 2 : 3;
        stopReplica(lagging);
        RaftEngine leader = engines[leaderId];
        for (int i = 0; i < 30; i++) {
            appendVia(leader, 5).get(10, TimeUnit.SECONDS);
        }
        for (int replica = 1; replica <= 3; replica++) {
            if (machines[replica] != null) {
                machines[replica].snapshotNow();
            }
        }
        long compactedTo = partitions[leaderId].appliedRaftIndex();
        await(() -> engines[leaderId].status(GROUP).snapshotIndex() == compactedTo, "the leader's compaction");
        start(lagging);
        awaitAll(150);
        assertEquals(1, machines[lagging].snapshotsInstalled(), "caught up by the snapshot, not by entries");
        assertSameSegments();
        // Entries after the snapshot still reach it one by one.
        appendVia(leader, 1).get(10, TimeUnit.SECONDS);
        awaitAll(151);
        assertSameSegments();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void aRestartAfterASnapshotReplaysOnlyTheEntriesAfterIt() throws Exception {
        startAll();
        int leaderId = awaitLeader();
        for (int i = 0; i < 10; i++) {
            appendVia(engines[leaderId], 2).get(10, TimeUnit.SECONDS);
        }
        awaitAll(20);
        int restarted = leaderId == 3 ? 2 : 3;
        machines[restarted].snapshotNow();
        long snapshotIndex = machines[restarted].partition().appliedRaftIndex();
        for (int i = 0; i < 5; i++) {
            appendVia(engines[leaderId], 2).get(10, TimeUnit.SECONDS);
        }
        awaitAll(30);
        stopReplica(restarted);
        start(restarted);
        assertEquals(snapshotIndex, openedAt[restarted], "opened at its snapshot");
        awaitAll(30);
        assertSameSegments();
    }

    @Test
    void anUnreadableCommandIsAnsweredOnEveryReplicaAndTheGroupGoesOn() throws Exception {
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        Result corrupt = (Result) leader.propose(GROUP, new byte[] {99, 99, 99}).get(10, TimeUnit.SECONDS);
        assertEquals(ErrorCode.CORRUPT_MESSAGE, assertInstanceOf(Result.Rejected.class, corrupt).error());
        Result next = (Result) appendVia(leader, 1).get(10, TimeUnit.SECONDS);
        assertEquals(0L, assertInstanceOf(Result.Appended.class, next).baseOffset());
        awaitAll(1);
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void eachBatchIsWrittenOnceTheEngineLogKeepsOnlyItsPlacement() throws Exception {
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        for (int i = 0; i < 20; i++) {
            appendVia(leader, 200).get(10, TimeUnit.SECONDS);
        }
        awaitAll(4000);
        assertSameSegments();
        for (int replica = 1; replica <= 3; replica++) {
            long segmentBytes = bytesUnder(root.resolve("r" + replica).resolve("log"), ".log");
            long engineLogBytes = bytesUnder(root.resolve("r" + replica).resolve("engine"), "");
            assertTrue(segmentBytes > 20 * 3000, "replica " + replica + " segments: " + segmentBytes);
            assertTrue(engineLogBytes < segmentBytes / 10, "replica " + replica + ": the engine's log holds "
                    + engineLogBytes + " bytes beside " + segmentBytes + " of segments");
        }
        assertTrue(machineOf(leader).placements() >= 20, "appends were placed");
    }

    @Test
    void withFsyncBatchesStayInTheEngineLogForGroupCommitAndAreWrittenAsTheyApply() throws Exception {
        fsync = true;
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        for (int i = 0; i < 10; i++) {
            appendVia(leader, 200).get(10, TimeUnit.SECONDS);
        }
        awaitAll(2000);
        assertSameSegments();
        long segmentBytes = bytesUnder(root.resolve("r1").resolve("log"), ".log");
        assertTrue(bytesUnder(root.resolve("r1").resolve("engine"), "") > segmentBytes,
                "the engine's log holds the batches, fsynced once per turn");
        int restarted = leader == engines[3] ? 2 : 3;
        stopReplica(restarted);
        start(restarted);
        appendVia(engines[awaitLeader()], 5).get(10, TimeUnit.SECONDS);
        awaitAll(2005);
        assertSameSegments();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void afterARestartTheLeaderReadsBatchesBackFromItsSegmentForALaggingReplica() throws Exception {
        startAll();
        int leaderId = awaitLeader();
        int lagging = leaderId == 3 ? 2 : 3;
        stopReplica(lagging);
        for (int i = 0; i < 10; i++) {
            appendVia(engines[leaderId], 4).get(10, TimeUnit.SECONDS);
        }
        // Both replicas that hold the entries restart: their engine logs give them back without their batches.
        for (int replica = 1; replica <= 3; replica++) {
            if (replica != lagging) {
                stopReplica(replica);
            }
        }
        for (int replica = 1; replica <= 3; replica++) {
            start(replica);
        }
        awaitAll(40);
        assertEquals(0, machines[lagging].snapshotsInstalled(), "caught up by entries, not by a snapshot");
        assertSameSegments();
        Result next = (Result) appendVia(engines[awaitLeader()], 1).get(10, TimeUnit.SECONDS);
        assertEquals(40L, assertInstanceOf(Result.Appended.class, next).baseOffset());
        awaitAll(41);
        assertSameSegments();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void appendsInFlightAroundMarkersKeepDenseOffsetsInProposalOrderOnEveryReplica() throws Exception {
        startAll();
        RaftEngine leader = engines[awaitLeader()];
        List<CompletableFuture<Object>> proposed = new java.util.ArrayList<>();
        for (int i = 0; i < 60; i++) {
            proposed.add(appendVia(leader, 3));
            if (i % 7 == 3) {   // decided only as it applies: appends go whole until it does
                proposed.add(EngineProposals.propose(leader, GROUP, new Command.TxnMarker(500 + i, (short) 0, false,
                        0, System.currentTimeMillis())));
            }
        }
        long next = 0;
        for (CompletableFuture<Object> future : proposed) {
            Result.Appended appended = assertInstanceOf(Result.Appended.class, future.get(10, TimeUnit.SECONDS));
            assertEquals(next, appended.baseOffset(), "in proposal order, nothing between");
            next = appended.lastOffset() + 1;
        }
        awaitAll(next);
        assertSameSegments();
        long placedBefore = machineOf(leader).placements();
        appendVia(leader, 3).get(10, TimeUnit.SECONDS);
        assertEquals(placedBefore + 1, machineOf(leader).placements(), "placed again once the markers applied");
        // Every replica replays the mix (placed, whole, logged whole to be written as it applied) to the same bytes.
        for (int replica = 1; replica <= 3; replica++) {
            stopReplica(replica);
        }
        for (int replica = 1; replica <= 3; replica++) {
            start(replica);
        }
        awaitAll(next + 3);
        assertSameSegments();
        assertTrue(failures.isEmpty(), failures.toString());
    }

    @Test
    void aNewLeaderCutsTheOldLeadersUncommittedBatchesOnItsReturn() throws Exception {
        startAll();
        int oldLeader = awaitLeader();
        for (int i = 0; i < 5; i++) {
            appendVia(engines[oldLeader], 2).get(10, TimeUnit.SECONDS);
        }
        awaitAll(10);
        // The others stop hearing it: what it proposes now is placed in its segment and never committed.
        cut.add(oldLeader);
        for (int i = 0; i < 5; i++) {
            appendVia(engines[oldLeader], 7);
        }
        await(() -> partitions[oldLeader].logEndOffset() > 10, "uncommitted batches in the old leader's segment");
        await(() -> serving.entrySet().stream().anyMatch(e -> e.getValue() && e.getKey() != oldLeader),
                "a new leader");
        int newLeader = serving.entrySet().stream().filter(e -> e.getValue() && e.getKey() != oldLeader)
                .findFirst().orElseThrow().getKey();
        for (int i = 0; i < 3; i++) {
            appendVia(engines[newLeader], 1).get(10, TimeUnit.SECONDS);
        }
        cut.clear();
        awaitAll(13);
        assertSameSegments();
        assertEquals(13L, partitions[oldLeader].logEndOffset(), "its own uncommitted batches are cut");
    }

    private EnginePartitionMachine machineOf(RaftEngine engine) {
        for (int replica = 1; replica <= 3; replica++) {
            if (engines[replica] == engine) {
                return machines[replica];
            }
        }
        throw new AssertionError("no such engine");
    }

    private static long bytesUnder(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            long bytes = 0;
            for (Path file : files.filter(f -> Files.isRegularFile(f) && f.toString().endsWith(suffix)).toList()) {
                bytes += Files.size(file);
            }
            return bytes;
        }
    }

    /** Proposes an append as the broker does: the batch as the entry's tail, not copied into one array. */
    private static CompletableFuture<Object> appendVia(RaftEngine leader, int records) {
        return EngineProposals.propose(leader, GROUP, new Command.Append(PartitionTestBatches.plain(records),
                System.currentTimeMillis()));
    }

    private void startAll() throws Exception {
        for (int replica = 1; replica <= 3; replica++) {
            start(replica);
        }
    }

    private void start(int replica) throws Exception {
        Path dir = root.resolve("r" + replica);
        InMemoryOffsetStore offsets = new InMemoryOffsetStore(io);
        EnginePartitionMachine machine = new EnginePartitionMachine(TP, () -> new Partition(TP.topic(),
                TP.partition(), Log.open(io, dir.resolve("log"), LogConfig.defaults().withSegmentBytes(4096)), offsets),
                dir.resolve("log"), PartitionSnapshots.open(dir.resolve("snapshots")), () -> { },
                index -> engines[replica].compact(GROUP, index));
        RaftConfig raft = new RaftConfig(10, 1, 20, RaftConfig.APPEND_BYTES_MAX_DEFAULT,
                RaftConfig.INFLIGHT_APPENDS_MAX_DEFAULT, RaftConfig.UNCOMMITTED_ENTRIES_MAX_DEFAULT);
        EngineConfig config = new EngineConfig(replica, 1, 20, raft, fsync, 300, 50,
                EngineConfig.LOOP_QUEUE_MAX_DEFAULT, 16, 1);
        RaftEngine engine = RaftEngine.start(config, dir.resolve("engine"), this::deliver,
                (group, leader, term, isServing) -> serving.put(replica, isServing && leader == replica),
                failures::add);
        engines[replica] = engine;
        machines[replica] = machine;
        partitions[replica] = machine.partition();
        openedAt[replica] = machine.partition().appliedRaftIndex();
        engine.createGroup(GROUP, List.of(1, 2, 3), machine).get(10, TimeUnit.SECONDS);
    }

    private void stopReplica(int replica) {
        if (engines[replica] != null) {
            engines[replica].close();
            engines[replica] = null;
            serving.remove(replica);
        }
        if (machines[replica] != null) {
            machines[replica].partition().close();
            machines[replica] = null;
            partitions[replica] = null;
        }
    }

    private void deliver(int peer, ByteBuffer frame) {
        RaftEngine engine = engines[peer];
        int sender = frame.getInt(frame.position() + 4);
        if (engine != null && !cut.contains(peer) && !cut.contains(sender)) {
            ByteBuffer copy = ByteBuffer.allocate(frame.remaining());
            copy.put(frame.duplicate()).flip();
            engine.deliver(copy);
        }
    }

    private int awaitLeader() throws InterruptedException {
        await(() -> serving.containsValue(true), "a leader");
        return serving.entrySet().stream().filter(Map.Entry::getValue).findFirst().orElseThrow().getKey();
    }

    private void awaitAll(long highWatermark) throws InterruptedException {
        await(() -> Stream.of(1, 2, 3).allMatch(r -> machines[r] != null
                && machines[r].partition().highWatermark() == highWatermark), "every replica at " + highWatermark);
    }

    private void assertSameSegments() throws IOException {
        Map<String, byte[]> first = segments(1);
        assertTrue(!first.isEmpty());
        for (int replica = 2; replica <= 3; replica++) {
            Map<String, byte[]> other = segments(replica);
            assertEquals(first.keySet(), other.keySet());
            for (String name : first.keySet()) {
                assertArrayEquals(first.get(name), other.get(name), "replica " + replica + " " + name);
            }
        }
    }

    /** Each segment file's bytes, up to the partition's log end (a preallocated tail is not data). */
    private Map<String, byte[]> segments(int replica) throws IOException {
        machines[replica].partition().flush();
        Map<String, byte[]> bytes = new TreeMap<>();
        try (Stream<Path> files = Files.list(root.resolve("r" + replica).resolve("log"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                bytes.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        return bytes;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }
}
