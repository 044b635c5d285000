package dev.cairn.maelstrom.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.raft.Entry;
import dev.cairn.raft.Message;
import dev.cairn.raft.RaftConfig;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.RaftStatus;
import dev.cairn.raft.Ready;
import dev.cairn.raft.Role;
import dev.cairn.raft.storage.RaftWal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition groups on Cairn's own Raft core ({@code dev.cairn.raft}, docs/multi-raft.md) instead of Ratis
 * ({@code --raft cairn}): every group's {@link RaftNode} runs on one engine thread, which ticks them, steps the
 * messages other nodes send, carries out their {@link Ready}s and applies committed entries to the broker's
 * {@link Partition}, as {@link PartitionGroups} does through Ratis. This is the per-broker runtime of
 * docs/multi-raft.md in miniature: no thread per group, and one Maelstrom message per peer per engine step
 * carries the Raft messages of every group ({@code {"type":"craft","msgs":[...]}}, {@link RaftMessageJson}).
 *
 * <p>The engine also pings each peer every {@link #PEER_PING_MS} (an empty {@code craft} message) and reports a
 * peer it has not heard from for an election timeout to every group ({@link RaftNode#onPeerDown}), and that it is
 * back when it hears from it ({@link RaftNode#onPeerUp}): the per-node failure detector that lets quiet groups stay
 * quiet, and leaders stop sending to a dead node.
 *
 * <p>Every group's hard state and entries go to one {@link RaftWal} (in the node's Raft directory, kept across
 * restarts with {@code --storage-dir}), written once per engine step for all groups before any message leaves;
 * a restarted node recovers from it and re-applies the committed entries.
 */
public final class CoreRaftGroups implements ReplicatedPartitions {
    private static final Logger LOG = LoggerFactory.getLogger(CoreRaftGroups.class);

    public static final String MESSAGE_TYPE = "craft";
    /** The engine's clock: every group ticks this often. */
    static final long TICK_MS = 50;
    /**
     * A leader's heartbeats, in ticks: 250 ms, a quarter of the default election timeout's lower end (Ratis sends
     * one every half; 100 ms doubled the node's messages per op under Maelstrom).
     */
    static final int HEARTBEAT_TICKS = 5;
    /** Every peer hears from this node at least this often, Raft traffic or not (the failure detector's input). */
    static final long PEER_PING_MS = 250;
    /**
     * Whether the Raft log is forced to the device before messages go out. Off, as the Ratis node's unsafe flush:
     * the log is written to the file (the page cache) first, which a killed process keeps; only a machine crash
     * could lose the tail.
     */
    static final boolean FSYNC = false;
    /** Engine tasks (inbound messages, proposals, ticks) queued at most; beyond it they are dropped or refused. */
    static final int ENGINE_QUEUE_MAX = 65_536;
    /** Rounds of Readys one engine step carries out (each round's advances may make the next round's Readys). */
    static final int READY_ROUNDS_MAX = 16;
    /** The exit status of a node whose Raft log could not be written. */
    static final int EXIT_STORAGE_FAILED = 74;

    private final MaelstromIo io;
    private final String selfId;
    private final List<String> nodeIds;
    private final int selfReplica;
    private final int partitionCount;
    private final long peerDownAfterNs;
    private final RaftNode[] nodes;
    private final Partition[] partitions;
    private final List<Map<Long, Pending>> pending = new ArrayList<>();
    private final AtomicReferenceArray<Leadership> leadership;
    private final ThreadPoolExecutor engine;
    private final long[] lastHeardNs;
    /** Peers this node has reported down to its groups, until it hears from them again. */
    private final boolean[] reportedDown;
    private final RaftWal wal;
    private final Map<String, ArrayNode> outgoing = new LinkedHashMap<>();
    /** When this node last sent each peer anything. */
    private final long[] lastSentNs;
    private ScheduledFuture<?> ticker;

    /** A proposal waiting for its entry to apply: completed when an entry of its term applies at its index. */
    private record Pending(long term, CompletableFuture<byte[]> future) {
    }

    /**
     * Opens (or recovers) the Raft log in {@code walDirectory}: a restarted node starts every group from the hard
     * state and entries it had persisted, and re-applies the committed ones into fresh in-memory partitions.
     */
    public CoreRaftGroups(String selfId, List<String> nodeIds, NodeConfig config, MaelstromIo io, Path walDirectory)
            throws IOException {
        this.io = io;
        this.selfId = selfId;
        this.nodeIds = nodeIds.stream().sorted().toList();
        this.selfReplica = this.nodeIds.indexOf(selfId) + 1;
        this.partitionCount = config.partitions();
        this.peerDownAfterNs = TimeUnit.MILLISECONDS.toNanos(config.electionTimeoutMinMs());
        this.nodes = new RaftNode[partitionCount];
        this.partitions = new Partition[partitionCount];
        this.leadership = new AtomicReferenceArray<>(partitionCount);
        this.lastHeardNs = new long[this.nodeIds.size() + 1];
        this.reportedDown = new boolean[this.nodeIds.size() + 1];
        this.lastSentNs = new long[this.nodeIds.size() + 1];
        int electionTicks = (int) Math.max(HEARTBEAT_TICKS + 1, config.electionTimeoutMinMs() / TICK_MS);
        RaftConfig raftConfig = new RaftConfig(electionTicks, HEARTBEAT_TICKS, 2 * electionTicks,
                config.appenderBufferBytes(), RaftConfig.INFLIGHT_APPENDS_MAX_DEFAULT,
                RaftConfig.UNCOMMITTED_ENTRIES_MAX_DEFAULT);
        List<Integer> voters = new ArrayList<>();
        for (int replica = 1; replica <= this.nodeIds.size(); replica++) {
            voters.add(replica);
        }
        SplittableRandom random = new SplittableRandom(System.nanoTime() ^ selfId.hashCode());
        InMemoryFileIo fileIo = new InMemoryFileIo();
        OffsetStore offsets = new InMemoryOffsetStore(fileIo);
        LogConfig logConfig = LogConfig.defaults().withSegmentBytes(PartitionGroups.PARTITION_SEGMENT_BYTES)
                .withSegmentIndexBytes(PartitionGroups.PARTITION_SEGMENT_INDEX_BYTES);
        RaftWal.Opened opened = RaftWal.open(walDirectory, RaftWal.SEGMENT_BYTES_DEFAULT);
        this.wal = opened.wal();
        for (int p = 0; p < partitionCount; p++) {
            // This node never compacts, so no group has a snapshot record: it replays from the first entry.
            RaftWal.GroupState recovered = opened.groups().getOrDefault(p, RaftWal.GroupState.EMPTY);
            nodes[p] = RaftNode.start(selfReplica, voters, raftConfig, random.split(), recovered.hardState(),
                    recovered.entries(), 0);
            Path directory = Path.of("/maelstrom", selfId, PartitionGroups.TOPIC + "-" + p);
            partitions[p] = new Partition(PartitionGroups.TOPIC, p, Log.open(fileIo, directory, logConfig), offsets);
            pending.add(new HashMap<>());
            leadership.set(p, Leadership.UNKNOWN);
        }
        this.engine = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(ENGINE_QUEUE_MAX), MaelstromIo.daemon("raft-engine"));
    }

    @Override
    public void start() {
        long now = System.nanoTime();
        java.util.Arrays.fill(lastHeardNs, now);
        java.util.Arrays.fill(lastSentNs, now);
        ticker = io.timer().scheduleAtFixedRate(() -> runOnEngine(this::tickAll), TICK_MS, TICK_MS,
                TimeUnit.MILLISECONDS);
    }

    private boolean runOnEngine(Runnable task) {
        try {
            engine.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("Raft engine task failed", e);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void tickAll() {
        long now = System.nanoTime();
        for (int replica = 1; replica < lastHeardNs.length; replica++) {
            if (replica != selfReplica && now - lastHeardNs[replica] > peerDownAfterNs) {
                reportedDown[replica] = true;
                for (RaftNode node : nodes) {
                    node.onPeerDown(replica);
                }
            }
        }
        for (RaftNode node : nodes) {
            node.tick();
        }
        // A ping only to a peer this node has sent nothing to for PEER_PING_MS: Raft traffic is proof of life too.
        for (int replica = 1; replica < lastSentNs.length; replica++) {
            if (replica != selfReplica && now - lastSentNs[replica] >= TimeUnit.MILLISECONDS.toNanos(PEER_PING_MS)) {
                outgoing.computeIfAbsent(nodeIds.get(replica - 1), d -> MaelstromIo.mapper().createArrayNode());
            }
        }
        flush();
    }

    @Override
    public boolean isRaftMessage(String type) {
        return MESSAGE_TYPE.equals(type);
    }

    @Override
    public void onRaftMessage(String src, ObjectNode body) {
        int from = nodeIds.indexOf(src) + 1;
        if (from == 0 || !runOnEngine(() -> step(from, body.path("msgs")))) {
            LOG.debug("dropped Raft traffic from {}", src);
        }
    }

    private void step(int from, JsonNode messages) {
        lastHeardNs[from] = System.nanoTime();
        if (reportedDown[from]) {
            reportedDown[from] = false;
            for (RaftNode node : nodes) {
                node.onPeerUp(from);
            }
        }
        for (JsonNode array : messages) {
            try {
                RaftMessageJson.GroupMessage decoded = RaftMessageJson.decode(array);
                Message message = decoded.message();
                int p = decoded.group();
                if (p < 0 || p >= partitionCount || message.from() != from || message.to() != selfReplica) {
                    throw new IllegalArgumentException("misaddressed: group " + p + " " + message);
                }
                nodes[p].step(message);
            } catch (IllegalArgumentException e) {
                LOG.warn("dropped a malformed Raft message from replica {}: {}", from, e.getMessage());
            }
        }
        flush();
    }

    @Override
    public CompletableFuture<byte[]> submitLocal(int p, byte[] command) {
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        if (!runOnEngine(() -> propose(p, command, future))) {
            future.completeExceptionally(new IOException("Raft engine queue full (" + ENGINE_QUEUE_MAX + ")"));
        }
        return future;
    }

    private void propose(int p, byte[] command, CompletableFuture<byte[]> future) {
        long raftIndex = nodes[p].propose(command);
        if (raftIndex < 0) {
            future.completeExceptionally(new IOException(raftIndex == RaftNode.REFUSED_NOT_LEADER
                    ? "not the leader of partition " + p : "too many uncommitted entries in partition " + p));
            return;
        }
        Pending replaced = pending.get(p).put(raftIndex, new Pending(nodes[p].status().term(), future));
        if (replaced != null) {
            replaced.future().completeExceptionally(new IOException("entry " + raftIndex + " was replaced"));
        }
        flush();
    }

    /**
     * Carries out every group's Ready: all of them persisted in one write to the Raft log (one sync), then their
     * messages queued, their committed entries applied and the groups advanced; again while that made new Readys.
     */
    private void carryOutReadys() {
        List<Integer> groups = new ArrayList<>();
        List<Ready> readies = new ArrayList<>();
        for (int round = 0; round < READY_ROUNDS_MAX; round++) {
            groups.clear();
            readies.clear();
            for (int p = 0; p < partitionCount; p++) {
                if (nodes[p].hasReady()) {
                    Ready ready = nodes[p].ready();
                    // This node never compacts its log, so no leader sends a snapshot and none is restored.
                    if (ready.snapshot() != null) {
                        throw new IllegalStateException("partition " + p + ": snapshot restore is not built here");
                    }
                    wal.append(p, ready.hardState(), ready.entries());
                    groups.add(p);
                    readies.add(ready);
                }
            }
            if (groups.isEmpty()) {
                return;
            }
            syncOrHalt();
            for (int i = 0; i < groups.size(); i++) {
                int p = groups.get(i);
                Ready ready = readies.get(i);
                for (Message message : ready.messages()) {
                    String dest = nodeIds.get(message.to() - 1);
                    outgoing.computeIfAbsent(dest, d -> MaelstromIo.mapper().createArrayNode())
                            .add(RaftMessageJson.encode(p, message));
                }
                ready.committed().forEach(entry -> apply(p, entry));
                nodes[p].advance(ready);
                publishLeadership(p);
            }
        }
    }

    /** A node that cannot write its Raft log must not answer as if it had: it stops. */
    private void syncOrHalt() {
        try {
            wal.sync(FSYNC);
        } catch (IOException e) {
            LOG.error("writing the Raft log failed; stopping the node", e);
            Runtime.getRuntime().halt(EXIT_STORAGE_FAILED);
        }
    }

    private void publishLeadership(int p) {
        RaftNode node = nodes[p];
        RaftStatus status = node.status();
        boolean ready = status.role() == Role.LEADER && node.termAt(status.commitIndex()) == status.term();
        String leader = status.leader() == RaftNode.NONE ? null : nodeIds.get(status.leader() - 1);
        leadership.set(p, new Leadership(ready, leader));
    }

    private void apply(int p, Entry entry) {
        Pending waiting = pending.get(p).remove(entry.raftIndex());
        if (waiting != null && waiting.term() != entry.term()) {
            waiting.future().completeExceptionally(new IOException("entry " + entry.raftIndex()
                    + " was replaced by a later leader's"));
            waiting = null;
        }
        if (entry.data().length == 0) {
            return;
        }
        Result result;
        try {
            result = partitions[p].apply(entry.raftIndex(), (int) entry.term(),
                    CommandCodec.decodeCommand(ByteBuffer.wrap(entry.data())));
        } catch (CommandFormatException e) {
            // The same bytes fail the same way on every replica, so skipping the entry keeps them alike.
            LOG.error("partition {}: unreadable command at {}: {}", p, entry.raftIndex(), e.getMessage());
            if (waiting != null) {
                waiting.future().completeExceptionally(e);
            }
            return;
        }
        if (waiting != null) {
            ByteBuffer encoded = CommandCodec.encode(result);
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            waiting.future().complete(bytes);
        }
    }

    /** Carries out the groups' Readys, then sends each peer one Maelstrom message with every Raft message for it. */
    private void flush() {
        carryOutReadys();
        long now = System.nanoTime();
        for (Map.Entry<String, ArrayNode> batch : outgoing.entrySet()) {
            ObjectNode body = MaelstromIo.mapper().createObjectNode().put("type", MESSAGE_TYPE);
            body.set("msgs", batch.getValue());
            io.send(batch.getKey(), body);
            lastSentNs[nodeIds.indexOf(batch.getKey()) + 1] = now;
        }
        outgoing.clear();
    }

    @Override
    public int partitionCount() {
        return partitionCount;
    }

    @Override
    public String selfId() {
        return selfId;
    }

    @Override
    public Partition partition(int p) {
        return partitions[p];
    }

    @Override
    public Leadership leadership(int p) {
        return leadership.get(p);
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.cancel(false);
        }
        engine.shutdownNow();
        try {
            engine.awaitTermination(1, TimeUnit.SECONDS);
            wal.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.warn("closing the Raft log failed", e);
        }
    }
}
