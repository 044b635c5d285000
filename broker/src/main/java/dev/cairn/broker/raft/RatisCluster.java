package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataChange;
import dev.cairn.broker.cluster.MetadataCodec;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's replicated state over Ratis: the metadata group (through {@link MetadataService}) and one group
 * per hosted partition (through {@link ReplicatedPartitions}). It keeps the set of local partition groups equal
 * to what metadata assigns to this broker through a {@link PartitionGroupReconciler}.
 */
public final class RatisCluster implements ReplicatedPartitions, MetadataService, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(RatisCluster.class);
    /** A preferred replica must have answered its leader this recently to be handed leadership. */
    private static final long TRANSFER_FOLLOWER_RESPONSE_MS_MAX = 1_000;
    /** After a failed leadership transfer, the partition is not tried again for this long. */
    private static final long TRANSFER_BACKOFF_MS = 30_000;
    /** Retries of a partition-group client (leader moves, elections), and the pause between them. */
    private static final int CLIENT_RETRIES_MAX = 20;
    private static final long CLIENT_RETRY_SLEEP_MS = 100;
    private static final RaftGroupId METADATA_GROUP = RaftGroupId.valueOf(PartitionGroups.METADATA_GROUP_ID);

    private final int nodeId;
    private final Map<Integer, String> raftAddresses;
    private final FileIo io;
    private final Path logsDir;
    private final LogConfig logConfig;
    private final OffsetStore offsets;
    private final LocalPartitionIndex index;
    private final ClusterMetadata metadata;
    private final RaftHost host;
    private final RaftClient metadataClient;
    private final Map<UUID, PartitionStateMachine> partitions = new ConcurrentHashMap<>();
    private final Map<TopicPartition, UUID> groupsByPartition = new ConcurrentHashMap<>();
    private final List<Consumer<TopicPartition>> appendListeners = new CopyOnWriteArrayList<>();
    /** Per led group: when each follower was last caught up, and the leader's commit index at the last check. */
    private final Map<UUID, Map<String, Long>> lastCaughtUpMs = new ConcurrentHashMap<>();
    private final Map<UUID, Long> previousLeaderCommitIndex = new ConcurrentHashMap<>();
    private final Set<UUID> statePublishesInFlight = ConcurrentHashMap.newKeySet();
    private final Set<UUID> transfersInFlight = ConcurrentHashMap.newKeySet();
    /** Per group: no leadership transfer before this time (ms), after a transfer that failed. */
    private final Map<UUID, Long> transferNotBeforeMs = new ConcurrentHashMap<>();
    /** Raft clients for partition groups this broker reaches without leading them (commits, offset reads). */
    private final Map<UUID, RaftClient> groupClients = new ConcurrentHashMap<>();
    private final org.apache.ratis.conf.RaftProperties clientProperties;
    private volatile PartitionGroupReconciler reconciler;

    /**
     * @param raftAddresses every voter's Raft address by node id (raft.voters)
     */
    public RatisCluster(int nodeId, Map<Integer, String> raftAddresses, RatisSettings settings, FileIo io,
            Path dataDir, LogConfig logConfig, OffsetStore offsets) throws IOException {
        this.nodeId = nodeId;
        this.raftAddresses = Map.copyOf(raftAddresses);
        this.io = io;
        this.logsDir = dataDir.resolve("logs");
        this.logConfig = logConfig;
        this.offsets = offsets;
        Files.createDirectories(logsDir);
        this.index = new LocalPartitionIndex(dataDir);
        this.metadata = new ClusterMetadata(this::onMetadataChange);
        StateMachine.Registry registry = groupId -> groupId.equals(METADATA_GROUP)
                ? new MetadataStateMachine(metadata) : newPartitionStateMachine(groupId);
        this.host = new RaftHost(Integer.toString(nodeId), settings, registry);
        this.reconciler = new PartitionGroupReconciler(nodeId, host, index, this::peers,
                tp -> logsDir.resolve(tp.topic() + "-" + tp.partition()), this::forget);
        RaftGroup metadataGroup = RaftGroup.valueOf(METADATA_GROUP, peers(List.copyOf(raftAddresses.keySet())));
        this.clientProperties = settings.toProperties();
        this.metadataClient = RaftClient.newBuilder().setRaftGroup(metadataGroup)
                .setProperties(clientProperties).build();
    }

    private StateMachine newPartitionStateMachine(RaftGroupId groupId) {
        UUID gid = groupId.getUuid();
        LocalPartitionIndex.Entry entry = index.get(gid).orElseThrow(() -> new IllegalStateException(
                "Raft group " + gid + " is not in the local partition index"));
        TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
        PartitionStateMachine machine = new PartitionStateMachine(
                () -> new Partition(entry.topic(), entry.partition(),
                        Log.open(io, partitionDir(tp), logConfig.withTopicOverrides(entry.configs())), offsets),
                partitionDir(tp),
                () -> appendListeners.forEach(listener -> listener.accept(tp)));
        partitions.put(gid, machine);
        groupsByPartition.put(tp, gid);
        return machine;
    }

    private Path partitionDir(TopicPartition tp) {
        return logsDir.resolve(tp.topic() + "-" + tp.partition());
    }

    private List<RaftPeer> peers(List<Integer> nodeIds) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int id : nodeIds) {
            String address = raftAddresses.get(id);
            if (address == null) {
                throw new IllegalStateException("node " + id + " has no Raft address in raft.voters");
            }
            peers.add(RaftHost.peer(Integer.toString(id), address));
        }
        return peers;
    }

    /** Starts the Raft server and joins the metadata group. */
    public void start() throws IOException {
        host.start();
        host.addGroup(METADATA_GROUP, peers(List.copyOf(raftAddresses.keySet())));
    }

    /** Runs on the metadata apply thread: hands the change to the reconciler, never throwing. */
    private void onMetadataChange(MetadataChange change) {
        PartitionGroupReconciler current = reconciler;
        if (current != null) {
            current.onMetadataChange(change);
        }
    }

    /** Forgets a removed group's state machine (the reconciler removed its Raft group and files). */
    private void forget(TopicPartition tp, UUID gid) {
        partitions.remove(gid);
        groupsByPartition.remove(tp, gid);
    }

    // ---------------------------------------------------------------- MetadataService

    @Override
    public MetadataImage image() {
        return metadata.image();
    }

    @Override
    public CompletableFuture<MetadataResult> submit(MetadataCommand command) {
        Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(MetadataCodec.encode(command)));
        return metadataClient.async().send(message).handle((reply, error) -> {
            if (error != null) {
                return new MetadataResult.Rejected(ErrorCode.REQUEST_TIMED_OUT, "metadata change failed: " + error);
            }
            if (!reply.isSuccess()) {
                return new MetadataResult.Rejected(ErrorCode.REQUEST_TIMED_OUT, "metadata change failed: "
                        + reply.getException());
            }
            return MetadataCodec.decodeResult(reply.getMessage().getContent().asReadOnlyByteBuffer());
        });
    }

    @Override
    public int controllerId() {
        return host.role(METADATA_GROUP).map(role -> parseNodeId(role.leaderId())).orElse(-1);
    }

    @Override
    public int localNodeId() {
        return nodeId;
    }

    private static int parseNodeId(String peerId) {
        if (peerId == null) {
            return -1;
        }
        try {
            return Integer.parseInt(peerId);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    // ---------------------------------------------------------------- ReplicatedPartitions

    @Override
    public CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs) {
        UUID gid = groupsByPartition.get(tp);
        if (gid == null) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + " is not hosted on broker " + nodeId));
        }
        ByteBuffer bytes = CommandCodec.encode(command);
        return host.submit(RaftGroupId.valueOf(gid), bytes)
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((result, error) -> error != null ? timedOut(tp, error) : toResult(tp, result));
    }

    private static Result timedOut(TopicPartition tp, Throwable error) {
        if (error instanceof TimeoutException) {
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": not committed in time");
        }
        return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": " + error);
    }

    private Result toResult(TopicPartition tp, SubmitResult result) {
        if (result instanceof SubmitResult.Applied applied) {
            return CommandCodec.decodeResult(applied.reply());
        }
        if (result instanceof SubmitResult.NotLeader) {
            return new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, tp + ": broker " + nodeId
                    + " is not the leader");
        }
        Throwable cause = ((SubmitResult.Failed) result).cause();
        UUID gid = groupsByPartition.get(tp);
        PartitionStateMachine machine = gid == null ? null : partitions.get(gid);
        StorageException offline = machine == null ? null : machine.offlineCause();
        if (offline != null) {
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + ": " + offline.getMessage());
        }
        return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": outcome unknown: " + cause);
    }

    @Override
    public CompletableFuture<Result> submitViaLeader(TopicPartition tp, Command command, long timeoutMs) {
        if (leadership(tp).local()) {
            return submit(tp, command, timeoutMs);
        }
        Optional<RaftClient> client = groupClient(tp);
        if (client.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    tp + " is not in metadata"));
        }
        Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(command)));
        return client.get().async().send(message).orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((reply, error) -> clientResult(tp, reply, error));
    }

    @Override
    public CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId, long timeoutMs) {
        Optional<Partition> local = leaderReplica(tp);
        if (local.isPresent()) {
            try {
                return CompletableFuture.completedFuture(local.get().committedOffset(groupId)
                        .<Result>map(Result.OffsetFetched::of)
                        .orElse(Result.OffsetFetched.NONE));
            } catch (StorageException e) {
                return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR,
                        e.getMessage()));
            }
        }
        Optional<RaftClient> client = groupClient(tp);
        if (client.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    tp + " is not in metadata"));
        }
        Message query = Message.valueOf(UnsafeByteOperations.unsafeWrap(
                CommandCodec.encodeCommittedOffsetQuery(groupId)));
        return client.get().async().sendReadOnly(query).orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((reply, error) -> clientResult(tp, reply, error));
    }

    private static Result clientResult(TopicPartition tp, org.apache.ratis.protocol.RaftClientReply reply,
            Throwable error) {
        if (error != null || reply == null || !reply.isSuccess()) {
            Object cause = error != null ? error : reply == null ? "no reply" : reply.getException();
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": through the leader failed: " + cause);
        }
        return CommandCodec.decodeResult(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    /** A client for the partition's group, built from its replicas in metadata, cached per group. */
    private Optional<RaftClient> groupClient(TopicPartition tp) {
        Optional<TopicInfo> topic = metadata.image().topic(tp.topic());
        if (topic.isEmpty() || tp.partition() < 0 || tp.partition() >= topic.get().partitionCount()) {
            return Optional.empty();
        }
        UUID gid = PartitionGroups.groupId(topic.get().topicId(), tp.partition());
        List<Integer> replicas = topic.get().replicas().get(tp.partition());
        return Optional.of(groupClients.computeIfAbsent(gid, id -> RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(RaftGroupId.valueOf(id), peers(replicas)))
                .setProperties(clientProperties)
                .setRetryPolicy(org.apache.ratis.retry.RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                        CLIENT_RETRIES_MAX, org.apache.ratis.util.TimeDuration.valueOf(CLIENT_RETRY_SLEEP_MS,
                                TimeUnit.MILLISECONDS)))
                .build()));
    }

    @Override
    public Optional<Partition> leaderReplica(TopicPartition tp) {
        UUID gid = groupsByPartition.get(tp);
        if (gid == null) {
            return Optional.empty();
        }
        PartitionStateMachine machine = partitions.get(gid);
        if (machine == null || machine.partition() == null || machine.offlineCause() != null) {
            return Optional.empty();
        }
        boolean leader = host.role(RaftGroupId.valueOf(gid)).map(GroupRole::isLeader).orElse(false);
        return leader ? Optional.of(machine.partition()) : Optional.empty();
    }

    /** This broker's replica of {@code tp}, leader or follower; empty when it hosts none or it is starting. */
    public Optional<Partition> localReplica(TopicPartition tp) {
        UUID gid = groupsByPartition.get(tp);
        PartitionStateMachine machine = gid == null ? null : partitions.get(gid);
        return Optional.ofNullable(machine == null ? null : machine.partition());
    }

    /** This broker's replica of {@code tp} as Raft sees it; empty when it hosts none or it is still starting. */
    public Optional<ReplicaRaftState> replicaRaftState(TopicPartition tp) {
        UUID gid = groupsByPartition.get(tp);
        PartitionStateMachine machine = gid == null ? null : partitions.get(gid);
        Partition partition = machine == null ? null : machine.partition();
        if (partition == null) {
            return Optional.empty();
        }
        RaftGroupId groupId = RaftGroupId.valueOf(gid);
        java.util.OptionalLong start = host.raftLogStartIndex(groupId);
        Optional<GroupRole> role = host.role(groupId);
        if (start.isEmpty() || role.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ReplicaRaftState(start.getAsLong(), role.get().appliedRaftIndex(),
                partition.logStartOffset(), partition.highWatermark(), machine.snapshotsInstalled()));
    }

    @Override
    public Leadership leadership(TopicPartition tp) {
        UUID gid = groupsByPartition.get(tp);
        if (gid == null) {
            return Leadership.UNKNOWN;
        }
        return host.role(RaftGroupId.valueOf(gid))
                .map(role -> new Leadership(parseNodeId(role.leaderId()), (int) role.term(), role.isLeader()))
                .orElse(Leadership.UNKNOWN);
    }

    /**
     * Publishes, for every partition this broker leads, its leadership and in-sync replicas through the metadata
     * group when they differ from what metadata says, so every broker can answer Metadata for it.
     *
     * <p>In-sync, precisely: the leader is in sync; a follower is in sync when, at some check within the last
     * {@code replicaLagTimeMaxMs}, its commit index had reached the commit index the leader had one check
     * earlier (checks run every {@code checkIntervalMs}). A new leader counts every follower as caught up at the
     * moment it took over, as Kafka does. A follower on a broker the metadata group marks dead is out at once.
     */
    public void publishPartitionStates(long nowMs, long replicaLagTimeMaxMs) {
        MetadataImage image = metadata.image();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            UUID gid = entry.groupId();
            RaftGroupId groupId = RaftGroupId.valueOf(gid);
            Optional<GroupRole> role = host.role(groupId);
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (role.isEmpty() || !role.get().isLeader() || topic.isEmpty()) {
                lastCaughtUpMs.remove(gid);
                previousLeaderCommitIndex.remove(gid);
                continue;
            }
            Optional<ReplicationStatus> status = host.replicationStatus(groupId);
            if (status.isEmpty()) {
                continue;
            }
            List<Integer> replicas = topic.get().replicas().get(entry.partition());
            List<Integer> isr = inSyncReplicas(gid, replicas, status.get(), nowMs, replicaLagTimeMaxMs,
                    image.deadBrokers());
            PartitionState state = new PartitionState(nodeId, (int) role.get().term(), isr);
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            if (state.equals(image.partitionState(tp).orElse(null)) || !statePublishesInFlight.add(gid)) {
                continue;
            }
            Optional<PartitionState> known = image.partitionState(tp);
            if (known.isPresent() && known.get().leaderId() == nodeId && !known.get().isr().equals(isr)) {
                LOG.info("{}: in-sync replicas {} -> {}", tp, known.get().isr(), isr);
            }
            submit(new MetadataCommand.UpdatePartitionState(entry.topicId(), entry.partition(), state))
                    .whenComplete((result, error) -> statePublishesInFlight.remove(gid));
        }
    }

    private List<Integer> inSyncReplicas(UUID gid, List<Integer> replicas, ReplicationStatus status, long nowMs,
            long replicaLagTimeMaxMs, Set<Integer> deadBrokers) {
        Map<String, Long> caughtUp = lastCaughtUpMs.computeIfAbsent(gid, k -> new ConcurrentHashMap<>());
        Long previousCommit = previousLeaderCommitIndex.put(gid, status.leaderCommitIndex());
        List<Integer> isr = new ArrayList<>();
        for (int replica : replicas) {
            if (replica == nodeId) {
                isr.add(replica);
                continue;
            }
            if (deadBrokers.contains(replica)) {
                // Not heard from within broker.session.timeout.ms: out at once, as Kafka fences a broker whose
                // heartbeats stop, rather than after replica.lag.time.max.ms (a dead broker stayed ~39 s).
                continue;
            }
            String id = Integer.toString(replica);
            ReplicationStatus.Follower follower = status.followers().get(id);
            boolean caughtUpNow = previousCommit == null
                    || (follower != null && follower.commitIndex() >= previousCommit);
            if (caughtUpNow) {
                caughtUp.put(id, nowMs);
            }
            if (nowMs - caughtUp.getOrDefault(id, Long.MIN_VALUE / 2) <= replicaLagTimeMaxMs) {
                isr.add(replica);
            }
        }
        return isr;
    }

    /**
     * On the metadata group's leader: publishes which registered brokers are dead, those it has not heard from
     * (their last Raft response) within {@code brokerSessionTimeoutMs}. The leader itself is alive. Group
     * coordinators are chosen among the live brokers, so a dead broker's groups move elsewhere.
     */
    public void publishBrokerLiveness(long brokerSessionTimeoutMs) {
        Optional<ReplicationStatus> status = host.replicationStatus(METADATA_GROUP);
        if (status.isEmpty() || !statePublishesInFlight.add(METADATA_GROUP.getUuid())) {
            return;
        }
        MetadataImage image = metadata.image();
        Set<Integer> dead = new java.util.TreeSet<>();
        for (int broker : image.brokers().keySet()) {
            if (broker == nodeId) {
                continue;
            }
            ReplicationStatus.Follower follower = status.get().followers().get(Integer.toString(broker));
            if (follower == null || follower.lastResponseElapsedMs() > brokerSessionTimeoutMs) {
                dead.add(broker);
            }
        }
        if (dead.equals(image.deadBrokers())) {
            statePublishesInFlight.remove(METADATA_GROUP.getUuid());
            return;
        }
        LOG.info("brokers not heard from within {} ms: {}", brokerSessionTimeoutMs, dead);
        submit(new MetadataCommand.UpdateDeadBrokers(dead))
                .whenComplete((result, error) -> statePublishesInFlight.remove(METADATA_GROUP.getUuid()));
    }

    /**
     * Preferred-leader balancing: for each partition this broker leads although another replica is its
     * preferred leader (the first in its replica list), hands leadership to that replica when it is in sync.
     * Replica assignment spreads preferred leaders, so this spreads leadership again after restarts.
     */
    public void balanceLeadership(long nowMs, long transferTimeoutMs) {
        MetadataImage image = metadata.image();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            RaftGroupId groupId = RaftGroupId.valueOf(entry.groupId());
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (topic.isEmpty() || !host.role(groupId).map(GroupRole::isLeader).orElse(false)
                    || nowMs < transferNotBeforeMs.getOrDefault(entry.groupId(), Long.MIN_VALUE)) {
                continue;
            }
            int preferred = topic.get().replicas().get(entry.partition()).get(0);
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            if (preferred == nodeId || !readyToLead(groupId, preferred, image)
                    || !transfersInFlight.add(entry.groupId())) {
                continue;
            }
            host.transferLeadership(groupId, Integer.toString(preferred), transferTimeoutMs).thenAccept(done -> {
                transfersInFlight.remove(entry.groupId());
                if (done) {
                    LOG.info("{}: leadership handed to its preferred replica {}", tp, preferred);
                } else {
                    transferNotBeforeMs.put(entry.groupId(), nowMs + TRANSFER_BACKOFF_MS);
                }
            });
        }
    }

    /**
     * Whether {@code replica} can take over right now. A leader transferring leadership refuses writes until the
     * transfer ends, so handing it to a replica that is gone would stall the partition: the replica must not be
     * marked dead, must have answered the leader within {@link #TRANSFER_FOLLOWER_RESPONSE_MS_MAX}, and must have
     * caught up with the leader's commit index. (The ISR alone is not enough: a stopped follower stays in it for
     * up to replica.lag.time.max.ms.)
     */
    private boolean readyToLead(RaftGroupId groupId, int replica, MetadataImage image) {
        if (image.deadBrokers().contains(replica)) {
            return false;
        }
        Optional<ReplicationStatus> status = host.replicationStatus(groupId);
        if (status.isEmpty()) {
            return false;
        }
        ReplicationStatus.Follower follower = status.get().followers().get(Integer.toString(replica));
        return follower != null && follower.lastResponseElapsedMs() <= TRANSFER_FOLLOWER_RESPONSE_MS_MAX
                && follower.commitIndex() >= status.get().leaderCommitIndex();
    }

    /**
     * Submits retention to every partition this broker leads. Retention is a replicated command so that every
     * replica deletes the same segments at the same point of its log.
     */
    public void enforceRetention(long nowMs, long timeoutMs) {
        for (TopicPartition tp : groupsByPartition.keySet()) {
            if (leadership(tp).local()) {
                submit(tp, new Command.EnforceRetention(nowMs), timeoutMs).thenAccept(result -> {
                    if (result instanceof Result.Retained retained && retained.segmentsDeleted() > 0) {
                        LOG.info("{}: retention deleted {} segments; the log now starts at offset {}", tp,
                                retained.segmentsDeleted(), retained.logStartOffset());
                    }
                });
            }
        }
    }

    /** The partition replicas this broker hosts and has opened, led or not (a read-only view, for metrics). */
    public List<Partition> localReplicas() {
        List<Partition> replicas = new ArrayList<>();
        for (PartitionStateMachine machine : partitions.values()) {
            Partition partition = machine.partition();
            if (partition != null) {
                replicas.add(partition);
            }
        }
        return replicas;
    }

    @Override
    public void onAppend(Consumer<TopicPartition> listener) {
        appendListeners.add(listener);
    }

    @Override
    public void close() throws IOException {
        reconciler.close();
        for (RaftClient client : groupClients.values()) {
            client.close();
        }
        metadataClient.close();
        host.close();
        offsets.close();
    }
}
