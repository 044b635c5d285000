package dev.cairn.maelstrom.node;

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
import dev.cairn.raft.RaftConfig;
import dev.cairn.raft.RaftNode;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.FrameFormatException;
import dev.cairn.raft.runtime.GroupStateMachine;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition groups on Cairn's own Raft ({@code --raft cairn}, docs/multi-raft.md) instead of Ratis: the same
 * multi-Raft engine the broker is to run on ({@link RaftEngine}, {@code dev.cairn.raft.runtime}), with Maelstrom's
 * network as its transport. Each engine frame (the Raft messages of every group for one peer, or a ping) travels as
 * one Maelstrom message, {@code {"type":"craft","frame":"<base64>"}}; committed entries apply to the broker's
 * {@link Partition}, as {@link PartitionGroups} does through Ratis.
 *
 * <p>The engine's write-ahead log lives in the node's Raft directory (kept across restarts with
 * {@code --storage-dir}), written but not forced to the device ({@link #FSYNC}); a restarted node recovers every
 * group from it and re-applies the committed entries into fresh in-memory partitions.
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
    /** One loop: a Maelstrom node is a small process, and one loop batches every group's messages per peer. */
    static final int LOOPS = 1;
    /**
     * Whether the Raft log is forced to the device before messages go out. Off, as the Ratis node's unsafe flush:
     * the log is written to the file (the page cache) first, which a killed process keeps; only a machine crash
     * could lose the tail.
     */
    static final boolean FSYNC = false;
    /** The exit status of a node whose Raft engine stopped (its log could not be written). */
    static final int EXIT_STORAGE_FAILED = 74;

    private final MaelstromIo io;
    private final String selfId;
    private final List<String> nodeIds;
    private final int selfReplica;
    private final int partitionCount;
    private final EngineConfig engineConfig;
    private final Path walDirectory;
    private final Partition[] partitions;
    private final AtomicReferenceArray<Leadership> leadership;
    private volatile RaftEngine engine;

    /** Prepares the groups; {@link #start} opens (or recovers) the engine's log in {@code walDirectory}. */
    public CoreRaftGroups(String selfId, List<String> nodeIds, NodeConfig config, MaelstromIo io, Path walDirectory)
            throws IOException {
        this.io = io;
        this.selfId = selfId;
        this.nodeIds = nodeIds.stream().sorted().toList();
        this.selfReplica = this.nodeIds.indexOf(selfId) + 1;
        this.partitionCount = config.partitions();
        this.walDirectory = walDirectory;
        int electionTicks = (int) Math.max(HEARTBEAT_TICKS + 1, config.electionTimeoutMinMs() / TICK_MS);
        RaftConfig raftConfig = new RaftConfig(electionTicks, HEARTBEAT_TICKS, 2 * electionTicks,
                config.appenderBufferBytes(), RaftConfig.INFLIGHT_APPENDS_MAX_DEFAULT,
                RaftConfig.UNCOMMITTED_ENTRIES_MAX_DEFAULT);
        this.engineConfig = new EngineConfig(selfReplica, LOOPS, TICK_MS, raftConfig, FSYNC,
                config.electionTimeoutMinMs(), PEER_PING_MS, EngineConfig.LOOP_QUEUE_MAX_DEFAULT,
                EngineConfig.SNAPSHOT_CHUNK_BYTES_DEFAULT, 0);
        this.partitions = new Partition[partitionCount];
        this.leadership = new AtomicReferenceArray<>(partitionCount);
        InMemoryFileIo fileIo = new InMemoryFileIo();
        OffsetStore offsets = new InMemoryOffsetStore(fileIo);
        LogConfig logConfig = LogConfig.defaults().withSegmentBytes(PartitionGroups.PARTITION_SEGMENT_BYTES)
                .withSegmentIndexBytes(PartitionGroups.PARTITION_SEGMENT_INDEX_BYTES);
        for (int p = 0; p < partitionCount; p++) {
            Path directory = Path.of("/maelstrom", selfId, PartitionGroups.TOPIC + "-" + p);
            partitions[p] = new Partition(PartitionGroups.TOPIC, p, Log.open(fileIo, directory, logConfig), offsets);
            leadership.set(p, Leadership.UNKNOWN);
        }
    }

    @Override
    public void start() throws IOException {
        RaftEngine started = RaftEngine.start(engineConfig, walDirectory, this::sendFrame, this::onLeadership,
                cause -> {
                    LOG.error("the Raft engine stopped; stopping the node", cause);
                    Runtime.getRuntime().halt(EXIT_STORAGE_FAILED);
                });
        List<Integer> voters = new ArrayList<>();
        for (int replica = 1; replica <= nodeIds.size(); replica++) {
            voters.add(replica);
        }
        List<CompletableFuture<Void>> created = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            created.add(started.createGroup(p, voters, new PartitionMachine(p)));
        }
        try {
            CompletableFuture.allOf(created.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            started.close();
            throw new IOException("the Raft groups did not start", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.close();
            throw new IOException("interrupted starting the Raft groups", e);
        }
        engine = started;
    }

    /** The engine's transport: one Maelstrom message per frame. */
    private void sendFrame(int peer, ByteBuffer frame) {
        byte[] bytes = new byte[frame.remaining()];
        frame.duplicate().get(bytes);
        ObjectNode body = MaelstromIo.mapper().createObjectNode().put("type", MESSAGE_TYPE)
                .put("frame", Base64.getEncoder().encodeToString(bytes));
        io.send(nodeIds.get(peer - 1), body);
    }

    private void onLeadership(int group, int leader, long term, boolean serving) {
        String leaderId = leader == RaftNode.NONE ? null : nodeIds.get(leader - 1);
        leadership.set(group, new Leadership(serving, leaderId));
    }

    @Override
    public boolean isRaftMessage(String type) {
        return MESSAGE_TYPE.equals(type);
    }

    @Override
    public void onRaftMessage(String src, ObjectNode body) {
        RaftEngine running = engine;
        if (running == null) {
            return;
        }
        try {
            int from = nodeIds.indexOf(src) + 1;
            ByteBuffer frame = ByteBuffer.wrap(Base64.getDecoder().decode(body.path("frame").asText()));
            if (from == 0 || frame.remaining() < 8 || frame.getInt(4) != from) {
                throw new FrameFormatException("a frame from " + src + " that does not name it as its sender");
            }
            running.deliver(frame);
        } catch (IllegalArgumentException e) {
            LOG.warn("dropped a malformed Raft frame from {}: {}", src, e.getMessage());
        }
    }

    @Override
    public CompletableFuture<byte[]> submitLocal(int p, byte[] command) {
        RaftEngine running = engine;
        if (running == null) {
            return CompletableFuture.failedFuture(new IOException("the Raft groups are not started"));
        }
        return running.propose(p, command).thenCompose(result -> result instanceof byte[] bytes
                ? CompletableFuture.completedFuture(bytes)
                : CompletableFuture.failedFuture((CommandFormatException) result));
    }

    /** Applies a partition's committed entries to its {@link Partition}; the encoded result answers the leader. */
    private final class PartitionMachine implements GroupStateMachine {
        private final int p;

        PartitionMachine(int p) {
            this.p = p;
        }

        @Override
        public long appliedIndex() {
            return 0;
        }

        @Override
        public Object apply(Entry entry) {
            if (entry.data().length == 0) {
                return null;
            }
            Result result;
            try {
                result = partitions[p].apply(entry.raftIndex(), (int) entry.term(),
                        CommandCodec.decodeCommand(ByteBuffer.wrap(entry.data())));
            } catch (CommandFormatException e) {
                // The same bytes fail the same way on every replica, so skipping the entry keeps them alike.
                LOG.error("partition {}: unreadable command at {}: {}", p, entry.raftIndex(), e.getMessage());
                return e;
            }
            ByteBuffer encoded = CommandCodec.encode(result);
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            return bytes;
        }
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
        RaftEngine running = engine;
        if (running != null) {
            running.close();
        }
    }
}
