package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.storage.RaftWal;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cairn's multi-Raft runtime for one process (docs/multi-raft.md, "The runtime"): any number of groups on a fixed
 * number of event loops ({@link EngineConfig#loops()}), plus one liveness thread, whatever the group count. Each group
 * lives on one loop (by its id), which ticks it, steps its messages, persists it in the loop's write-ahead log
 * (one sync per loop turn for all its groups) and applies its committed entries. Frames between engines carry the
 * messages of many groups ({@link FrameCodec}); quiet groups send nothing, and the liveness thread pings the peers
 * nothing else went to and reports silent ones down to their groups.
 *
 * <p>Fail-stop: a loop that cannot write its log, or whose state machine throws, stops the whole engine (no pings
 * either), so that peers see this replica down and elect elsewhere rather than wait on a half-working one; the
 * {@code onFailure} callback is told.
 *
 * <p>Snapshots: a state machine that keeps one calls {@link #compact}; followers that need compacted entries get
 * the snapshot in chunks ({@link SnapshotTransfers}). Leadership moves on request ({@link #transferLeadership}),
 * voters change one at a time ({@link #changeVoters}). Not yet: read index.
 *
 * <p>What the host can read: each group's published status from any thread ({@link #status}), a leader's view of
 * its followers from the group's loop ({@link #replication}), and how long each peer has been silent
 * ({@link #peerSilentMs}).
 */
public final class RaftEngine implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftEngine.class);
    private static final long JOIN_MS = 5_000;

    private final EngineConfig config;
    private final RaftLoop[] loops;
    private final Thread[] threads;
    private final RaftTransport transport;
    private final PeerLiveness liveness;
    private final ScheduledExecutorService livenessThread;
    /** The apply threads (EngineConfig.applyThreads), or null when the loops apply themselves. */
    private final ExecutorService applyPool;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong framesDropped = new AtomicLong();
    private final Consumer<Throwable> onFailure;

    private RaftEngine(EngineConfig config, RaftWal.Opened[] opened, RaftTransport transport,
            LeadershipListener listener, Consumer<Throwable> onFailure) {
        this.config = config;
        this.transport = transport;
        this.onFailure = onFailure;
        this.liveness = new PeerLiveness(TimeUnit.MILLISECONDS.toNanos(config.peerDownAfterMs()),
                TimeUnit.MILLISECONDS.toNanos(config.pingMs()));
        this.loops = new RaftLoop[opened.length];
        this.threads = new Thread[opened.length];
        long seed = System.nanoTime() ^ ((long) config.selfId() << 32);
        AtomicLong applyThreads = new AtomicLong();
        this.applyPool = config.applyThreads() == 0 ? null : Executors.newFixedThreadPool(config.applyThreads(),
                runnable -> daemon(runnable, "raft-apply-" + config.selfId() + "-" + applyThreads.getAndIncrement()));
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new RaftLoop(i, config, opened[i], transport, liveness, listener, this::failed, applyPool,
                    seed + i);
            threads[i] = daemon(loops[i], "raft-loop-" + config.selfId() + "-" + i);
        }
        this.livenessThread = Executors.newSingleThreadScheduledExecutor(
                runnable -> daemon(runnable, "raft-liveness-" + config.selfId()));
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * Opens (or recovers) the engine's logs under {@code directory} and starts its loops. {@code listener} hears
     * every leadership change; {@code onFailure} hears why the engine stopped itself, if it does.
     */
    public static RaftEngine start(EngineConfig config, Path directory, RaftTransport transport,
            LeadershipListener listener, Consumer<Throwable> onFailure) throws IOException {
        RaftWal.Opened[] opened = EngineDirectory.open(directory, config.loops());
        EngineConfig effective = config.withLoops(opened.length);
        RaftEngine engine = new RaftEngine(effective, opened, transport, listener, onFailure);
        for (Thread thread : engine.threads) {
            thread.start();
        }
        long period = Math.max(1, config.pingMs() / 2);
        engine.livenessThread.scheduleAtFixedRate(engine::checkPeers, period, period, TimeUnit.MILLISECONDS);
        return engine;
    }

    public EngineConfig config() {
        return config;
    }

    /** Threads this engine runs: its loops, the liveness thread and the apply threads, whatever the groups. */
    public int threadCount() {
        return loops.length + 1 + config.applyThreads();
    }

    /** Groups whose state the logs held at start and that are not created (or removed) since. */
    public List<Integer> recoveredGroups() {
        List<Integer> all = new ArrayList<>();
        for (RaftLoop loop : loops) {
            all.addAll(loop.recoveredGroups());
        }
        return all;
    }

    /**
     * Starts this engine's replica of {@code group} with {@code voters} (replica ids), from what its log holds for it
     * if anything; a configuration in that log or its snapshot stands over {@code voters}. A replica not among its
     * voters is one being added: it never stands for election until the leader's log makes it a voter
     * ({@link #changeVoters}), so start it with the group's current voters. Completes once the group runs.
     */
    public CompletableFuture<Void> createGroup(int group, List<Integer> voters, GroupStateMachine machine) {
        return createGroup(group, voters, machine, false);
    }

    /**
     * As {@link #createGroup(int, List, GroupStateMachine)}; with {@code campaignFirst} the replica stands for
     * election on its first tick rather than after an election timeout (a new group's preferred leader: its leader
     * is there within a tick or two, on the replica metadata prefers, when the other replicas run the group by then).
     */
    public CompletableFuture<Void> createGroup(int group, List<Integer> voters, GroupStateMachine machine,
            boolean campaignFirst) {
        if (voters.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("group " + group + " has no voters"));
        }
        watch(voters);
        return onLoop(group, (loop, done) -> loop.createGroup(group, voters, machine, campaignFirst, done));
    }

    /**
     * Lets the group's log drop its entries through {@code raftIndex}: the group's state machine keeps a snapshot at
     * that index (at most its applied index) and can hand it out ({@link GroupStateMachine#readSnapshot}) until the
     * next compaction. Fails with an {@link IllegalArgumentException} for an index the log cannot start after.
     */
    public CompletableFuture<Void> compact(int group, long raftIndex) {
        return onLoop(group, (loop, done) -> loop.compact(group, raftIndex, done));
    }

    /**
     * Asks this engine's replica of {@code group}, if it leads, to hand its leadership to replica {@code target}
     * (Ongaro's thesis 3.10): completes with whether the handover started. It ends when the target leads (the
     * listeners hear it), or is given up after an election timeout; proposals meanwhile are refused NOT_LEADER
     * naming the target.
     */
    public CompletableFuture<Boolean> transferLeadership(int group, int target) {
        return onLoop(group, (loop, started) -> loop.onCore(group, node -> node.transferLeadership(target), started));
    }

    /**
     * What this engine's replica of {@code group} knows of its followers' logs, taken on the group's loop: its commit
     * and last indexes and, if it leads, each other voter's match index (see {@link GroupReplication}). A replica
     * that does not lead completes with {@code leading() == false} and an empty map. Fails with a
     * {@link ProposalRefusedException}: UNKNOWN_GROUP for a group this engine does not hold, BUSY when the loop's
     * queue is full, CLOSED when the engine is closed or stops before the loop gets to it.
     */
    public CompletableFuture<GroupReplication> replication(int group) {
        return onLoop(group, (loop, done) -> loop.replication(group, done));
    }

    /**
     * Asks this engine's replica of {@code group}, if it leads, to make {@code next} the group's voters, one voter
     * added or removed from {@link #status}'s (Ongaro's thesis 4.1). Completes once the change applied here. Fails with
     * a {@link ProposalRefusedException} (NOT_LEADER; BUSY while an earlier change or the leader's first entry is not
     * committed) or an {@link IllegalArgumentException} when {@code next} is not one change away.
     */
    public CompletableFuture<Void> changeVoters(int group, List<Integer> next) {
        watch(next);
        CompletableFuture<Object> applied = onLoop(group, (loop, done) -> loop.proposeVoters(group, next, done));
        return applied.thenApply(result -> null);
    }

    /**
     * Asks this engine's replica of {@code group}, if it leads, to send its log to {@code peer}, not a voter, to catch
     * it up before {@link #changeVoters} adds it ({@link #replication} shows it); false if not leading or a voter.
     */
    public CompletableFuture<Boolean> catchUp(int group, int peer) {
        watch(List.of(peer));
        return onLoop(group, (loop, started) -> loop.onCore(group, node -> node.catchUp(peer), started));
    }

    /** Watches the brokers of {@code replicas} (pings, failure reports) and takes their frames. */
    private void watch(List<Integer> replicas) {
        long now = System.nanoTime();
        replicas.stream().filter(peer -> peer != config.selfId()).forEach(peer -> liveness.track(peer, now));
    }

    /** Stops this engine's replica of {@code group}; its proposals in flight fail. */
    public CompletableFuture<Void> removeGroup(int group) {
        return onLoop(group, (loop, done) -> loop.removeGroup(group, done));
    }

    /** {@link #proposeOwned} of a copy of {@code data} (the caller may reuse it at once). */
    public CompletableFuture<Object> propose(int group, byte[] data) {
        return proposeOwned(group, data.clone(), Entry.NO_TAIL);
    }

    /**
     * Proposes to {@code group} an entry whose bytes are {@code head} then {@code tail} (a payload the caller holds,
     * {@link Entry#NO_TAIL} for none): completes with what the state machine returned when it applied here, or fails
     * with a {@link ProposalRefusedException}. Never blocks the caller. Takes both without a copy, into the log,
     * frames and the {@link Entry} applied here: the caller must never touch them again, or replicas may apply
     * different bytes at the same index.
     */
    public CompletableFuture<Object> proposeOwned(int group, byte[] head, ByteBuffer tail) {
        return onLoop(group, (loop, future) -> loop.propose(group, head, tail, future));
    }

    /**
     * This replica's view of {@code group} (role, leader, term, commit, applied and snapshot indexes, serving), as its
     * loop last published it, or null when this engine holds no such group or is closed. Any thread, at any rate: a
     * map lookup and a volatile read, never a wait on the loop; the loop publishes after each Ready, compaction and
     * restore that changed something, so what this returns may trail the group by one loop turn.
     */
    public GroupStatus status(int group) {
        return closed.get() ? null : loopOf(group).status(group);
    }

    /** Runs {@code action} on {@code group}'s loop with a future it completes (or a refusal fails). */
    private <T> CompletableFuture<T> onLoop(int group, BiConsumer<RaftLoop, CompletableFuture<T>> action) {
        CompletableFuture<T> future = new CompletableFuture<>();
        RaftLoop loop = loopOf(group);
        submit(loop, future, () -> action.accept(loop, future));
        return future;
    }

    private <T> void submit(RaftLoop loop, CompletableFuture<T> future, Runnable action) {
        if (closed.get()) {
            future.completeExceptionally(refused(ProposalRefusedException.Reason.CLOSED, "the Raft engine is closed"));
            return;
        }
        LoopQueue.Refusable task = new LoopQueue.Refusable() {
            @Override
            public void run() {
                action.run();
            }

            @Override
            public void refuse(ProposalRefusedException refused) {
                future.completeExceptionally(refused);
            }
        };
        if (!loop.offer(task)) {
            future.completeExceptionally(refused(ProposalRefusedException.Reason.BUSY, "the Raft loop's queue is full ("
                    + config.loopQueueMax() + " tasks)"));
        }
    }

    private static ProposalRefusedException refused(ProposalRefusedException.Reason reason, String why) {
        return new ProposalRefusedException(reason, RaftNode.NONE, why);
    }

    /**
     * Takes one frame from the transport (any thread): the sender counts as alive, and each group's messages go to
     * the group's loop. A sender no group here names is watched from its first frame with group messages on (the
     * leader of a group this replica was added to may be a replica its starting voters did not name). A malformed
     * frame is a {@link FrameFormatException} and changes nothing.
     */
    public void deliver(ByteBuffer frame) {
        FrameCodec.Frame decoded = FrameCodec.decode(frame);
        int sender = decoded.sender();
        if (closed.get() || !liveness.isTracked(sender) && decoded.messages().isEmpty()) {
            return;
        }
        liveness.track(sender, System.nanoTime());
        if (liveness.heard(sender, System.nanoTime())) {
            LOG.info("replica {} hears replica {} again", config.selfId(), sender);
            forEachLoop((loop, unused) -> loop.offer(() -> loop.peerReported(sender, false)));
        }
        if (decoded.messages().isEmpty()) {
            return;
        }
        List<List<FrameCodec.GroupMessage>> byLoop = new ArrayList<>(loops.length);
        for (int i = 0; i < loops.length; i++) {
            byLoop.add(new ArrayList<>());
        }
        for (FrameCodec.GroupMessage message : decoded.messages()) {
            byLoop.get(loopIndex(message.group())).add(message);
        }
        forEachLoop((loop, i) -> {
            List<FrameCodec.GroupMessage> mine = byLoop.get(i);
            if (!mine.isEmpty() && !loop.offer(() -> loop.step(mine))) {
                framesDropped.incrementAndGet();
            }
        });
    }

    /**
     * Milliseconds since a frame (Raft messages or a ping) last arrived from replica {@code peer}, or
     * {@link Long#MAX_VALUE} when none has since this engine started, or {@code peer} is a voter of no group created
     * here (this engine's own id among them). A live peer pings when nothing else went to this engine for
     * {@link EngineConfig#pingMs()}, so its silence stays around that even when all its groups are quiet. Any thread,
     * without waiting.
     */
    public long peerSilentMs(int peer) {
        long silentNs = liveness.silentNs(peer, System.nanoTime());
        return silentNs == Long.MAX_VALUE ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(silentNs);
    }

    /** Syncs of the loops' logs so far: one per loop turn that wrote anything, whatever the groups in it. */
    public long logSyncs() {
        long total = 0;
        for (RaftLoop loop : loops) {
            total += loop.syncs();
        }
        return total;
    }

    /** Frames (or parts of frames) dropped because a loop's queue was full. */
    public long framesDropped() {
        return framesDropped.get();
    }

    private void forEachLoop(BiConsumer<RaftLoop, Integer> action) {
        for (int i = 0; i < loops.length; i++) {
            action.accept(loops[i], i);
        }
    }

    /** The liveness thread: report silent peers down (again each time), ping those nothing went to lately. */
    private void checkPeers() {
        try {
            long now = System.nanoTime();
            PeerLiveness.Check check = liveness.check(now);
            for (int peer : check.down()) {
                forEachLoop((loop, unused) -> loop.offer(() -> loop.peerReported(peer, true)));
            }
            for (int peer : check.pingDue()) {
                try {
                    transport.send(peer, FrameCodec.ping(config.selfId()));
                } catch (RuntimeException e) {
                    LOG.debug("a ping to replica {} was lost: {}", peer, e.toString());
                }
                liveness.sent(peer, now);
            }
        } catch (RuntimeException e) {
            LOG.error("the Raft liveness check failed", e);
        }
    }

    private RaftLoop loopOf(int group) {
        return loops[loopIndex(group)];
    }

    private int loopIndex(int group) {
        // Spread consecutive ids (a topic's partitions) over the loops.
        return Math.floorMod((group * 0x9E3779B9) >>> 16, loops.length);
    }

    private void failed(Throwable cause) {
        if (closed.get()) {
            // Closing stops the loops and the apply threads under whatever they were doing; that is not a failure.
            LOG.debug("replica {}: while the Raft engine closed: {}", config.selfId(), cause.toString());
            return;
        }
        LOG.error("the Raft engine of replica {} stops: {}", config.selfId(), cause.toString(), cause);
        close();
        onFailure.accept(cause);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        livenessThread.shutdownNow();
        for (RaftLoop loop : loops) {
            loop.stop();
        }
        for (Thread thread : threads) {
            if (thread != Thread.currentThread()) {
                try {
                    thread.join(JOIN_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (applyPool != null) {
            ApplyLane.shutDown(applyPool, JOIN_MS, "replica " + config.selfId());
        }
    }
}
