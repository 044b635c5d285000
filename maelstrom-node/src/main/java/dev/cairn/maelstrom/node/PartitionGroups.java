package dev.cairn.maelstrom.node;

import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.raft.PartitionStateMachine;
import dev.cairn.maelstrom.transport.MaelstromRpcType;
import dev.cairn.maelstrom.transport.MaelstromTransport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * This node's Ratis server and its partition groups: partition {@code p} of the one Maelstrom topic is the Raft
 * group {@link #groupId(int)} over every node, and its state machine is the broker's
 * {@link PartitionStateMachine} around the broker's {@link Partition} core, on an in-memory log
 * ({@link InMemoryFileIo}) and an {@link InMemoryOffsetStore}. The Raft log is Ratis's segmented log on disk
 * ({@link NodeStorage}: per process, or kept across restarts with {@code --storage-dir}), with fsyncs off the
 * commit path. Snapshots are off, so a restarted process rebuilds the partition log and committed offsets by
 * Ratis replaying its whole Raft log into the state machine.
 *
 * <p>Commands are submitted to the local server directly (as the broker's {@code RaftHost} does); routing to the
 * leader is {@link WriteRouter}'s job.
 */
public final class PartitionGroups implements ReplicatedPartitions {
    public static final String TOPIC = "maelstrom";
    /** Raft log segments of the in-memory log and the partition log's segments: small, tests are short. */
    static final int PARTITION_SEGMENT_BYTES = 64 << 20;
    static final int PARTITION_SEGMENT_INDEX_BYTES = 1 << 20;
    /** The first election timeout after start-up (later ones use {@link NodeConfig#electionTimeoutMinMs()}). */
    static final long FIRST_ELECTION_TIMEOUT_MIN_MS = 200;
    static final long FIRST_ELECTION_TIMEOUT_MAX_MS = 500;
    /** Raft log segment files per group: small, a Maelstrom run writes a few MB at most. */
    static final int RAFT_SEGMENT_BYTES = 8 << 20;
    static final int RAFT_PREALLOCATED_BYTES = 1 << 20;
    /** Ratis requires the write buffer to exceed the appender's byte limit by at least 8 bytes. */
    static final int RAFT_WRITE_BUFFER_EXTRA_BYTES = 64 * 1024;
    private static final RaftGroupId[] GROUP_IDS = groupIds();

    private final RaftServer server;
    private final MaelstromTransport transport;
    private final RaftPeerId selfId;
    private final int partitionCount;
    private final List<RaftPeer> peers = new ArrayList<>();
    private final Map<RaftGroupId, Integer> partitionOfGroup = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<PartitionStateMachine> stateMachines;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();

    public PartitionGroups(String nodeId, List<String> nodeIds, NodeConfig config, MaelstromTransport transport,
            File storageDir) throws IOException {
        this.transport = transport;
        this.selfId = RaftPeerId.valueOf(nodeId);
        this.partitionCount = config.partitions();
        this.stateMachines = new AtomicReferenceArray<>(partitionCount);
        for (String id : nodeIds) {
            peers.add(RaftPeer.newBuilder().setId(id).build());
        }
        for (int p = 0; p < partitionCount; p++) {
            partitionOfGroup.put(groupId(p), p);
        }
        InMemoryFileIo fileIo = new InMemoryFileIo();
        OffsetStore offsets = new InMemoryOffsetStore(fileIo);
        LogConfig logConfig = LogConfig.defaults().withSegmentBytes(PARTITION_SEGMENT_BYTES)
                .withSegmentIndexBytes(PARTITION_SEGMENT_INDEX_BYTES);
        Parameters parameters = new Parameters();
        MaelstromRpcType.register(parameters, transport);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setProperties(properties(config, storageDir))
                .setParameters(parameters)
                .setStateMachineRegistry(groupId -> {
                    int p = partitionOfGroup.get(groupId);
                    Path logDirectory = Path.of("/maelstrom", nodeId, TOPIC + "-" + p);
                    // Snapshots are off here (see properties), so the directory is only ever the in-memory one.
                    PartitionStateMachine machine = new PartitionStateMachine(() -> new Partition(TOPIC, p,
                            Log.open(fileIo, logDirectory, logConfig), offsets), logDirectory, () -> { });
                    stateMachines.set(p, machine);
                    return machine;
                })
                .build();
    }

    /** The Ratis settings for Maelstrom (ratis.md B.2 rules 6-9), every one named in {@link NodeConfig}. */
    static RaftProperties properties(NodeConfig config, File storageDir) {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, new MaelstromRpcType());
        RaftServerConfigKeys.setStorageDir(properties, List.of(storageDir));
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, ms(config.electionTimeoutMinMs()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, ms(config.electionTimeoutMaxMs()));
        // The first election after start-up need not wait out a whole timeout: no leader can exist yet.
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, ms(FIRST_ELECTION_TIMEOUT_MIN_MS));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, ms(FIRST_ELECTION_TIMEOUT_MAX_MS));
        RaftServerConfigKeys.Rpc.setRequestTimeout(properties, ms(config.raftRequestTimeoutMs()));
        // Ratis's in-memory Raft log never signals its leader that an entry is "flushed", so a single-node group
        // would never commit: keep the segmented log, in the node's temporary directory, with fsyncs off the
        // write path. Unsafe flush still writes each entry into the file (the page cache) before Ratis counts it
        // flushed and acknowledges it (BufferedWriteChannel.asyncFlush writes the buffer, then forces on another
        // thread), so a process killed with SIGKILL keeps every entry it acknowledged; only a machine crash
        // could lose them.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, true);
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(RAFT_SEGMENT_BYTES));
        RaftServerConfigKeys.Log.setPreallocatedSize(properties, SizeInBytes.valueOf(RAFT_PREALLOCATED_BYTES));
        RaftServerConfigKeys.Log.setWriteBufferSize(properties,
                SizeInBytes.valueOf(config.appenderBufferBytes() + RAFT_WRITE_BUFFER_EXTRA_BYTES));
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(properties, false);
        // Ratis by default appends a "commit index" entry to the log after every commit, which the leader then
        // replicates: one more AppendEntries round trip (two Maelstrom messages) per send. The commit index is
        // Raft's volatile state; a restarted node learns it from the leader.
        RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, false);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties,
                SizeInBytes.valueOf(config.appenderBufferBytes()));
        // No snapshots: the runs are minutes long and the in-memory Raft log holds them.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, false);
        return properties;
    }

    private static TimeDuration ms(long millis) {
        return TimeDuration.valueOf(millis, TimeUnit.MILLISECONDS);
    }

    public static RaftGroupId groupId(int partition) {
        // Asked on every client operation: the ids are computed once (a name-based UUID costs an MD5 digest).
        return GROUP_IDS[partition];
    }

    private static RaftGroupId[] groupIds() {
        RaftGroupId[] ids = new RaftGroupId[NodeConfig.PARTITIONS_MAX];
        for (int p = 0; p < ids.length; p++) {
            ids[p] = RaftGroupId.valueOf(UUID.nameUUIDFromBytes(
                    (TOPIC + "-partition-" + p).getBytes(StandardCharsets.UTF_8)));
        }
        return ids;
    }

    /**
     * Starts the server and adds every partition group over all nodes (each node adds them itself). A process
     * restarted on a kept storage directory finds its groups there: Ratis loads them with their log, term and vote,
     * and replays the committed entries into fresh state machines, so they are not added again.
     */
    @Override
    public void start() throws IOException {
        server.start();
        List<RaftGroupId> loaded = new ArrayList<>();
        server.getGroupIds().forEach(loaded::add);
        for (int p = 0; p < partitionCount; p++) {
            if (loaded.contains(groupId(p))) {
                continue;
            }
            RaftGroup group = RaftGroup.valueOf(groupId(p), peers);
            RaftClientReply reply = server.groupManagement(
                    GroupManagementRequest.newAdd(clientId, selfId, callIds.incrementAndGet(), group, true));
            if (!reply.isSuccess()) {
                throw new IOException("adding Raft group for partition " + p + " failed: " + reply.getException());
            }
        }
    }

    @Override
    public int partitionCount() {
        return partitionCount;
    }

    @Override
    public String selfId() {
        return selfId.toString();
    }

    /** The partition core for reads (committed data only), or null before Ratis initialized the group. */
    @Override
    public Partition partition(int p) {
        PartitionStateMachine machine = stateMachines.get(p);
        return machine == null ? null : machine.partition();
    }

    /** This node's view of the group's roles, or null when the group is not (yet) running here. */
    DivisionInfo info(int p) {
        try {
            return server.getDivision(groupId(p)).getInfo();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public Leadership leadership(int p) {
        DivisionInfo info = info(p);
        if (info == null) {
            return Leadership.UNKNOWN;
        }
        RaftPeerId leader = info.getLeaderId();
        return new Leadership(info.isLeader() && info.isLeaderReady(), leader == null ? null : leader.toString());
    }

    /** Submits command bytes to the local division; a reply that is not a success fails the future. */
    @Override
    public CompletableFuture<byte[]> submitLocal(int p, byte[] command) {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(groupId(p))
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(command)))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        try {
            return server.submitClientRequestAsync(request).thenApply(reply -> {
                if (!reply.isSuccess()) {
                    // Includes NotLeaderException sent to pending requests when this leader stepped down: the
                    // entry may still commit under the next leader.
                    throw new CompletionException(reply.getException());
                }
                return reply.getMessage().getContent().toByteArray();
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean isRaftMessage(String type) {
        return "raft".equals(type);
    }

    @Override
    public void onRaftMessage(String src, ObjectNode body) {
        transport.onRaftRequest(src, body);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
