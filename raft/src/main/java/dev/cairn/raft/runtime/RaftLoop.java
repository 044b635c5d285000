package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.Ready;
import dev.cairn.raft.storage.RaftWal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One event loop of an engine: a thread that owns some groups and their write-ahead log. Each turn it runs the
 * queued tasks (frames, proposals, group changes), ticks its groups when a tick is due, then carries out their
 * Readys: every group's hard state and entries in one append to the loop's {@link RaftWal} and one sync, then the
 * messages (one frame per peer for all groups), then the committed entries applied. Nothing about a group is
 * touched by any other thread.
 */
final class RaftLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftLoop.class);

    /** Tasks one turn runs at most before it ticks and writes (so a flood of frames cannot starve the clock). */
    static final int TASKS_PER_TURN_MAX = 4096;
    /** Rounds of Readys one turn carries out (an advance may make the next round's Ready: commit notices). */
    static final int READY_ROUNDS_MAX = 8;

    private final int index;
    private final EngineConfig config;
    private final LoopLog log;
    private final Map<Integer, RaftWal.GroupState> recovered;
    private final RaftTransport transport;
    private final PeerLiveness liveness;
    private final LeadershipListener listener;
    private final Consumer<Throwable> onFailure;
    /** Where committed entries are applied when not on this thread (EngineConfig.applyThreads), or null. */
    private final Executor applyPool;
    private final LoopQueue tasks;
    /** Changed by this loop's thread only; concurrent so that {@link #status} may look a group up from any thread. */
    private final Map<Integer, GroupReplica> groups = new ConcurrentHashMap<>();
    /** The groups something happened to this turn (a message, a proposal, a tick): only they may have a Ready. */
    private List<GroupReplica> dirty = new ArrayList<>();
    private List<GroupReplica> dirtyNext = new ArrayList<>();
    private final PeerOutbox outbox;
    private final SnapshotTransfers transfers;
    private final SplittableRandom random;
    private final long tickNs;
    private volatile boolean running = true;
    /** Set by {@link #stop}: a loop that ends without it ended on a failure. */
    private volatile boolean stopAsked;

    RaftLoop(int index, EngineConfig config, RaftWal.Opened opened, RaftTransport transport, PeerLiveness liveness,
            LeadershipListener listener, Consumer<Throwable> onFailure, Executor applyPool, long seed) {
        this.applyPool = applyPool;
        this.index = index;
        this.config = config;
        this.log = new LoopLog(index, opened.wal(), config.fsync());
        this.recovered = new HashMap<>(opened.groups());
        this.transport = transport;
        this.liveness = liveness;
        this.listener = listener;
        this.onFailure = onFailure;
        this.tasks = new LoopQueue(config.loopQueueMax());
        this.random = new SplittableRandom(seed);
        this.tickNs = TimeUnit.MILLISECONDS.toNanos(config.tickMs());
        this.transfers = new SnapshotTransfers(config.selfId(), config.snapshotChunkBytes(), groups::get,
                this::queueOut);
        this.outbox = new PeerOutbox(config.selfId(), transport, liveness);
    }

    private void queueOut(int peer, FrameCodec.GroupMessage message) {
        outbox.add(peer, message);
    }

    /** Queues a task for this loop's thread; false when the queue is full or the loop has stopped. */
    boolean offer(Runnable task) {
        return running && tasks.offer(task);
    }

    /** The groups this loop's log holds state for at start. */
    List<Integer> recoveredGroups() {
        return List.copyOf(recovered.keySet());
    }

    @Override
    public void run() {
        long nextTick = System.nanoTime() + tickNs;
        try {
            while (running) {
                // Groups left dirty by the last turn's last round go on at once.
                long wait = dirty.isEmpty() ? nextTick - System.nanoTime() : 0;
                Runnable task = tasks.poll(wait);
                for (int done = 0; task != null; done++) {
                    task.run();
                    task = done + 1 < TASKS_PER_TURN_MAX ? tasks.poll() : null;
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    for (GroupReplica replica : groups.values()) {
                        replica.node.tick();
                        markDirty(replica);
                    }
                    transfers.tick();
                    // A loop that fell behind skips the ticks it missed rather than firing them in a burst.
                    nextTick = Math.max(nextTick + tickNs, now);
                }
                carryOutReadys();
                outbox.send();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | AssertionError e) {
            running = false;
            stopAsked = true;
            onFailure.accept(e);
        } finally {
            running = false;
            if (!stopAsked) {
                // An Error (a broken invariant of the core) is on its way up: the engine must stop with it.
                onFailure.accept(new IllegalStateException("Raft loop " + index + " ended on an error"));
            }
            for (GroupReplica replica : groups.values()) {
                if (replica.lane != null) {
                    replica.lane.close();
                }
            }
            failAll(ProposalRefusedException.Reason.CLOSED, "the Raft engine stopped");
            log.close();
        }
    }

    /** Syncs of this loop's log so far (any thread). */
    long syncs() {
        return log.syncs();
    }

    /** The group's status as its replica last published it, or null when this loop holds no such group (any thread). */
    GroupStatus status(int group) {
        GroupReplica replica = groups.get(group);
        return replica == null ? null : replica.status();
    }

    void stop() {
        stopAsked = true;
        running = false;
    }

    void createGroup(int group, List<Integer> voters, GroupStateMachine machine, boolean campaignFirst,
            CompletableFuture<Void> done) {
        if (groups.containsKey(group)) {
            done.completeExceptionally(new IllegalStateException("group " + group + " exists already"));
            return;
        }
        RaftWal.GroupState state = recovered.getOrDefault(group, RaftWal.GroupState.EMPTY);
        recovered.remove(group);
        long snapshotIndex = state.snapshot().raftIndex();
        // A machine may hold more than the log's persisted commit (it was written, the hard state not yet):
        // it skips what it holds when those entries apply again.
        long applied = Math.min(machine.appliedIndex(), state.hardState().commitIndex());
        if (applied < snapshotIndex) {
            done.completeExceptionally(new IllegalStateException("group " + group + ": its log starts after "
                    + snapshotIndex + " but the state machine holds only " + applied
                    + " (restoring a snapshot is not built into this runtime yet)"));
            return;
        }
        RaftNode node = RaftNode.start(config.selfId(), voters, config.raft(), random.split(), state.hardState(),
                state.snapshot(), state.entries(), applied);
        GroupReplica replica = new GroupReplica(group, node, machine, applied, snapshotIndex);
        if (applyPool != null) {
            replica.lane = new ApplyLane(applyPool, replica::apply, () -> {
                if (replica.awaitingApply) {
                    offer(() -> replica.publish(listener));
                }
            }, onFailure::accept);
        }
        groups.put(group, replica);
        markDirty(replica);
        for (int peer : node.voters()) {
            if (peer != config.selfId() && liveness.isDown(peer)) {
                node.onPeerDown(peer);
            }
        }
        if (campaignFirst) {
            node.campaignOnNextTick();
        }
        replica.publish(listener);
        done.complete(null);
    }

    void removeGroup(int group, CompletableFuture<Void> done) {
        GroupReplica replica = groups.remove(group);
        boolean logged = recovered.remove(group) != null || replica != null;
        if (logged) {
            log.removeGroup(group);
        }
        if (replica != null) {
            if (replica.lane != null) {
                replica.lane.close();
            }
            replica.failPending(ProposalRefusedException.Reason.UNKNOWN_GROUP, "group " + group + " was removed");
        }
        transfers.forget(group);
        done.complete(null);
    }

    /**
     * The group's machine keeps a snapshot through {@code raftIndex}: the log drops the entries it holds (a snapshot
     * record in the loop's log says so), and followers that need them get the snapshot instead.
     */
    void compact(int group, long raftIndex, CompletableFuture<Void> done) {
        GroupReplica replica = groups.get(group);
        if (replica == null) {
            done.completeExceptionally(new IllegalArgumentException("no group " + group + " to compact"));
            return;
        }
        try {
            log.appendSnapshot(group, replica.compact(raftIndex));
            done.complete(null);
        } catch (IllegalArgumentException e) {
            done.completeExceptionally(e);
        }
    }

    void propose(int group, byte[] head, ByteBuffer tail, CompletableFuture<Object> future) {
        GroupReplica replica = groups.get(group);
        if (replica == null) {
            future.completeExceptionally(unknownGroup(group));
            return;
        }
        if (replica.lane != null && replica.lane.backlog() > ApplyLane.BACKLOG_MAX) {
            future.completeExceptionally(new ProposalRefusedException(ProposalRefusedException.Reason.BUSY,
                    RaftNode.NONE, "group " + group + " has " + replica.lane.backlog() + " entries to apply"));
            return;
        }
        replica.propose(head, tail, future);
        markDirty(replica);
    }

    private ProposalRefusedException unknownGroup(int group) {
        return new ProposalRefusedException(ProposalRefusedException.Reason.UNKNOWN_GROUP, RaftNode.NONE,
                "no group " + group + " on replica " + config.selfId());
    }

    /** What the group's replica knows of its followers' logs ({@link RaftEngine#replication}). */
    void replication(int group, CompletableFuture<GroupReplication> done) {
        GroupReplica replica = groups.get(group);
        if (replica == null) {
            done.completeExceptionally(unknownGroup(group));
        } else {
            done.complete(replica.replication());
        }
    }

    void proposeVoters(int group, List<Integer> next, CompletableFuture<Object> future) {
        GroupReplica replica = groups.get(group);
        if (replica == null) {
            future.completeExceptionally(unknownGroup(group));
            return;
        }
        replica.proposeVoters(next, future);
        markDirty(replica);
    }

    /** Runs {@code action} on the group's core (a leader's request): whether it took it (false: no such group). */
    void onCore(int group, Predicate<RaftNode> action, CompletableFuture<Boolean> started) {
        GroupReplica replica = groups.get(group);
        boolean accepted = replica != null && action.test(replica.node);
        if (accepted) {
            markDirty(replica);
        }
        started.complete(accepted);
    }

    /** Steps the messages of one frame that belong to this loop's groups. */
    void step(List<FrameCodec.GroupMessage> messages) {
        for (FrameCodec.GroupMessage groupMessage : messages) {
            GroupReplica replica = groups.get(groupMessage.group());
            if (replica == null) {
                continue;
            }
            markDirty(replica);
            if (groupMessage.snapshot() instanceof SnapshotTraffic.Chunk chunk) {
                transfers.onChunk(replica, chunk);
                continue;
            } else if (groupMessage.snapshot() instanceof SnapshotTraffic.Ack ack) {
                transfers.onAck(replica, ack);
                continue;
            }
            Message message = groupMessage.message();
            if (message.to() != config.selfId()) {
                continue;
            }
            try {
                replica.node.step(message);
            } catch (IllegalArgumentException | AssertionError e) {
                // A well-framed message the core cannot take (impossible indexes): the sender is broken or hostile.
                LOG.warn("loop {}: dropped a message for group {} from replica {}: {}", index, replica.group,
                        message.from(), e.toString());
            }
        }
    }

    /** The failure detector reports {@code peer} down (again) or back up to the groups it is a voter of. */
    void peerReported(int peer, boolean down) {
        for (GroupReplica replica : groups.values()) {
            if (replica.node.voters().contains(peer) || replica.node.status().leader() == peer) {
                if (down) {
                    replica.node.onPeerDown(peer);
                } else {
                    replica.node.onPeerUp(peer);
                }
                markDirty(replica);
            }
        }
    }

    private void markDirty(GroupReplica replica) {
        if (!replica.dirty) {
            replica.dirty = true;
            dirty.add(replica);
        }
    }

    /**
     * Persists, sends and applies what the dirty groups' Readys ask, round after round while advances make more
     * (a group that advanced is looked at again in the next round; one left over after the last round, in the
     * next turn).
     */
    private void carryOutReadys() {
        List<GroupReplica> ready = new ArrayList<>();
        List<Ready> readies = new ArrayList<>();
        for (int round = 0; round < READY_ROUNDS_MAX && !dirty.isEmpty(); round++) {
            List<GroupReplica> looked = dirty;
            dirty = dirtyNext;
            dirtyNext = looked;
            ready.clear();
            readies.clear();
            for (GroupReplica replica : looked) {
                replica.dirty = false;
                if (groups.get(replica.group) == replica && replica.node.hasReady()) {
                    Ready next = replica.node.ready();
                    replica.persist(next, log, !config.fsync());
                    ready.add(replica);
                    readies.add(next);
                }
            }
            looked.clear();
            if (ready.isEmpty()) {
                return;
            }
            log.sync();
            for (int i = 0; i < ready.size(); i++) {
                GroupReplica replica = ready.get(i);
                Ready done = readies.get(i);
                for (Message message : done.messages()) {
                    if (message instanceof Message.InstallSnapshot request) {
                        transfers.onInstallSnapshot(replica, request);
                    } else if (message instanceof Message.AppendRequest append) {
                        Message.AppendRequest whole = HeldTails.readBack(replica, append);
                        if (whole != null) {
                            queueOut(message.to(), new FrameCodec.GroupMessage(replica.group, whole));
                        }
                    } else {
                        queueOut(message.to(), new FrameCodec.GroupMessage(replica.group, message));
                    }
                }
                if (replica.lane != null) {
                    replica.lane.submit(done.committed());
                } else {
                    for (Entry entry : done.committed()) {
                        replica.apply(entry);
                    }
                }
                replica.node.advance(done);
                replica.releaseAppliedTails();
                replica.publish(listener);
                markDirty(replica);
            }
        }
    }

    private void failAll(ProposalRefusedException.Reason reason, String why) {
        for (GroupReplica replica : groups.values()) {
            replica.failPending(reason, why);
        }
        tasks.close();
    }
}
