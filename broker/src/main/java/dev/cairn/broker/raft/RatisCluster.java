package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataChange;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.PartitionHost;
import dev.cairn.broker.cluster.PartitionLeaderJobs;
import dev.cairn.broker.cluster.ReplicaRaftState;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacementCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's replicated state over Ratis: the metadata group (through {@link MetadataService}) and one group
 * per hosted partition (through {@link ReplicatedPartitions}). It keeps the set of local partition groups equal
 * to what metadata assigns to this broker through a {@link PartitionGroupReconciler}.
 */
public final class RatisCluster implements PartitionHost, MetadataService, Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(RatisCluster.class);
    /** How long one copy of committed batches from a partition's leader may take (a replica filling a gap). */
    private static final long GAP_FILL_QUERY_MS = 5_000;
    private static final RaftGroupId METADATA_GROUP = RaftGroupId.valueOf(PartitionGroups.METADATA_GROUP_ID);
    /** How long a committed metadata change waits to be applied here before answering (read your own change). */
    static final long METADATA_LOCAL_APPLY_WAIT_MS = 5_000;
    /** The longest {@link #close} takes. */
    public static final long CLOSE_MS_MAX = RaftShutdown.CLOSE_MS_MAX;

    private final int nodeId;
    /** The metadata group's voters as raft.voters lists them; without this broker when it joins later. */
    private final List<Integer> configuredVoters;
    private final RaftAddresses addresses;
    private final FileIo io;
    private final Path logsDir;
    private final LogConfig logConfig;
    private final OffsetStore offsets;
    private final long snapshotIntervalBytes;
    private final boolean writeOnce;   // batches written once, into the segments (needs an on-disk Raft log)
    private final boolean fsyncBeforeAck;
    private final LocalPartitionIndex index;
    private final ClusterMetadata metadata;
    private final RaftHost host;
    private final MetadataSubmitter metadataClient;
    private final Map<UUID, PartitionStateMachine> partitions = new ConcurrentHashMap<>();
    private final Map<TopicPartition, UUID> groupsByPartition = new ConcurrentHashMap<>();
    private final List<Consumer<TopicPartition>> appendListeners = new CopyOnWriteArrayList<>();
    private final ReplicaStatePublisher statePublisher;
    private final LeadershipBalancer balancer;
    private final PartitionLeaderJobs leaderJobs;
    private final ReassignmentDriver reassignments;
    private final LeaderClients leaderClients;
    private final LeaderReads leaderReads;
    private final org.apache.ratis.conf.RaftProperties clientProperties;
    private final boolean raftTls;
    private volatile PartitionGroupReconciler reconciler;
    /** False with raft.engine=cairn: this server runs the metadata group only, and partitions run elsewhere. */
    private final boolean hostsPartitionGroups;
    private final List<Consumer<MetadataChange>> metadataListeners = new CopyOnWriteArrayList<>();
    private final AppliedIndexWaiters metadataApplied = new AppliedIndexWaiters(METADATA_LOCAL_APPLY_WAIT_MS);

    /**
     * @param raftAddresses every voter's Raft address by node id (raft.voters); without this broker's node id, it joins
     *     the cluster they form at its Raft listener's address (see {@link ClusterJoin})
     */
    public RatisCluster(int nodeId, Map<Integer, String> raftAddresses, RatisSettings settings, FileIo io,
            Path dataDir, LogConfig logConfig, OffsetStore offsets) throws IOException {
        this(nodeId, raftAddresses, settings, io, dataDir, logConfig, offsets, true);
    }

    /**
     * @param hostsPartitionGroups false when the partitions run on another engine ({@code raft.engine=cairn}): then
     *     this runs the metadata group only, hands metadata changes to {@link #onMetadataChange(Consumer)}'s
     *     listeners, and its partition methods find no partition
     */
    public RatisCluster(int nodeId, Map<Integer, String> raftAddresses, RatisSettings settings, FileIo io,
            Path dataDir, LogConfig logConfig, OffsetStore offsets, boolean hostsPartitionGroups) throws IOException {
        this.nodeId = nodeId;
        this.hostsPartitionGroups = hostsPartitionGroups;
        this.configuredVoters = List.copyOf(raftAddresses.keySet());
        this.io = io;
        this.logsDir = dataDir.resolve("logs");
        this.logConfig = logConfig;
        this.offsets = offsets;
        this.snapshotIntervalBytes = settings.snapshotIntervalBytes();
        this.writeOnce = !settings.useMemoryLog();
        this.fsyncBeforeAck = settings.fsyncBeforeAck();
        Files.createDirectories(logsDir);
        this.index = new LocalPartitionIndex(dataDir);
        this.metadata = new ClusterMetadata(this::onMetadataChange);
        Map<Integer, String> known = new java.util.HashMap<>(raftAddresses);
        known.putIfAbsent(nodeId, settings.host() + ":" + settings.port());
        this.addresses = new RaftAddresses(known, metadata::image);
        StateMachine.Registry registry = groupId -> groupId.equals(METADATA_GROUP)
                ? new MetadataStateMachine(metadata, metadataApplied::applied) : newPartitionStateMachine(groupId);
        this.host = new RaftHost(Integer.toString(nodeId), settings, registry);
        this.statePublisher = new ReplicaStatePublisher(nodeId, host, index, metadata::image, this::submit);
        this.balancer = new LeadershipBalancer(nodeId, host, index, metadata::image,
                gid -> Optional.ofNullable(partitions.get(gid)).map(PartitionStateMachine::offlineCause).isPresent());
        this.leaderJobs = new PartitionLeaderJobs(groupsByPartition::keySet, this::leaderReplica, metadata::image,
                this::submit);
        this.reassignments = new ReassignmentDriver(nodeId, host, metadata::image, groupsByPartition::get,
                addresses::peers, this::submit);
        this.reconciler = new PartitionGroupReconciler(nodeId, host, index, addresses::peers,
                tp -> logsDir.resolve(tp.topic() + "-" + tp.partition()), this::forget);
        RaftGroup metadataGroup = RaftGroup.valueOf(METADATA_GROUP, addresses.peers(configuredVoters));
        this.clientProperties = settings.toProperties();
        this.raftTls = settings.tls() != null;
        this.leaderClients = new LeaderClients(metadata::image, addresses::peers, clientProperties,
                settings.toParameters());
        this.leaderReads = new LeaderReads(this::leaderReplica, leaderClients);
        this.metadataClient = new MetadataSubmitter(metadataGroup, clientProperties, settings.toParameters(),
                metadataApplied);
    }

    private StateMachine newPartitionStateMachine(RaftGroupId groupId) {
        if (!hostsPartitionGroups) {
            throw new IllegalStateException("Raft group " + groupId + ": partitions run on raft.engine=cairn");
        }
        UUID gid = groupId.getUuid();
        LocalPartitionIndex.Entry entry = index.get(gid).orElseThrow(() -> new IllegalStateException(
                "Raft group " + gid + " is not in the local partition index"));
        TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
        PartitionStateMachine machine = new PartitionStateMachine(
                () -> new Partition(entry.topic(), entry.partition(),
                        Log.open(io, partitionDir(tp), logConfig.withTopicOverrides(entry.configs())), offsets,
                        logConfig, entry.configs()),
                partitionDir(tp),
                () -> appendListeners.forEach(listener -> listener.accept(tp)),
                new SnapshotByBytes(snapshotIntervalBytes, () -> host.requestSnapshot(groupId)),
                writeOnce, fsyncBeforeAck, (from, maxBytes) -> PlacementCodec.decodeBatches(leaderClients.queryBytes(
                        tp, PlacementCodec.encodeBatchQuery(from, maxBytes), GAP_FILL_QUERY_MS).get()),
                (command, timeoutMs) -> submit(tp, command, timeoutMs));
        partitions.put(gid, machine);
        groupsByPartition.put(tp, gid);
        return machine;
    }

    private Path partitionDir(TopicPartition tp) {
        return logsDir.resolve(tp.topic() + "-" + tp.partition());
    }

    /** Starts the Raft server and joins the metadata group. */
    public void start() throws IOException {
        LOG.info("Raft traffic between brokers: {}", raftTls ? "TLS with mutual authentication (raft.ssl.*)"
                : "plaintext (raft.ssl.enabled=false)");
        host.start();
        if (configuredVoters.contains(nodeId)) {
            host.addGroup(METADATA_GROUP, addresses.peers(configuredVoters));
        } else {
            ClusterJoin.join(host, METADATA_GROUP, addresses.peers(List.of(nodeId)).get(0),
                    addresses.peers(configuredVoters), metadataClient.client());
        }
    }

    /** Runs on the metadata apply thread: hands the change to the reconciler, never throwing. */
    private void onMetadataChange(MetadataChange change) {
        PartitionGroupReconciler current = reconciler;
        if (current != null && hostsPartitionGroups) {
            current.onMetadataChange(change);
        }
        for (Consumer<MetadataChange> listener : metadataListeners) {
            listener.accept(change);
        }
    }

    /**
     * Registers a listener of applied metadata changes (on the metadata apply thread: it must not block); register
     * before {@link #start}, so that it hears the replay too.
     */
    public void onMetadataChange(Consumer<MetadataChange> listener) {
        metadataListeners.add(listener);
    }

    /** Forgets a removed group's state machine (the reconciler removed its Raft group and files). */
    private void forget(TopicPartition tp, UUID gid) {
        partitions.remove(gid);
        groupsByPartition.remove(tp, gid);
        offsets.removePartition(tp.topic(), tp.partition());
    }

    // ---------------------------------------------------------------- MetadataService

    @Override
    public MetadataImage image() {
        return metadata.image();
    }

    @Override
    public CompletableFuture<MetadataResult> submit(MetadataCommand command) {
        return metadataClient.submit(command);
    }

    @Override
    public int controllerId() {
        return host.role(METADATA_GROUP).map(GroupRole::leaderNodeId).orElse(-1);
    }

    @Override
    public int localNodeId() {
        return nodeId;
    }

    // ---------------------------------------------------------------- ReplicatedPartitions

    @Override
    public CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs) {
        UUID gid = groupsByPartition.get(tp);
        if (gid == null) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + " is not hosted on broker " + nodeId));
        }
        return host.submit(RaftGroupId.valueOf(gid), CommandCodec.encodeParts(command))
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((result, error) -> error != null ? SubmitResult.timedOut(tp, error) : toResult(tp, result));
    }

    private Result toResult(TopicPartition tp, SubmitResult result) {
        UUID gid = groupsByPartition.get(tp);
        PartitionStateMachine machine = gid == null ? null : partitions.get(gid);
        return SubmitResult.toResult(tp, nodeId, result, machine == null ? null : machine.offlineCause());
    }

    @Override
    public CompletableFuture<Result> submitViaLeader(TopicPartition tp, Command command, long timeoutMs) {
        if (leadership(tp).local()) {
            return submit(tp, command, timeoutMs);
        }
        // A command the leader places, or a verification, goes to its submit lane (ForwardedCommand).
        return ForwardedCommand.forwarded(command)
                ? leaderClients.query(tp, ForwardedCommand.encode(command, timeoutMs), timeoutMs)
                : leaderClients.send(tp, CommandCodec.encode(command), timeoutMs);
    }

    @Override
    public CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId, boolean requireStable,
            long timeoutMs) {
        return leaderReads.committedOffset(tp, groupId, requireStable, timeoutMs);
    }

    @Override
    public CompletableFuture<Result> committedGroups(TopicPartition tp, long timeoutMs) {
        return leaderReads.committedGroups(tp, timeoutMs);
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

    /**
     * Hands the partition's leadership to {@code toNode}: directly when this broker leads it, otherwise through a
     * Raft client to its leader (ElectLeaders on the controller). Completes with whether it happened in time.
     */
    @Override
    public CompletableFuture<Boolean> transferLeadership(TopicPartition tp, int toNode, long timeoutMs) {
        UUID gid = groupsByPartition.get(tp);
        if (gid != null && leadership(tp).local()) {
            return host.transferLeadership(RaftGroupId.valueOf(gid), Integer.toString(toNode), timeoutMs);
        }
        return leaderClients.transferLeadership(tp, toNode, timeoutMs);
    }

    /** Every partition replica this broker holds and has opened, leader or follower, by partition. */
    @Override
    public Map<TopicPartition, Partition> localReplicasByPartition() {
        Map<TopicPartition, Partition> replicas = new java.util.HashMap<>();
        groupsByPartition.forEach((tp, gid) -> {
            PartitionStateMachine machine = partitions.get(gid);
            if (machine != null && machine.partition() != null) {
                replicas.put(tp, machine.partition());
            }
        });
        return replicas;
    }

    /** This broker's replica of {@code tp}, leader or follower; empty when it hosts none or it is starting. */
    @Override
    public Optional<Partition> localReplica(TopicPartition tp) {
        return Optional.ofNullable(groupsByPartition.get(tp)).map(partitions::get)
                .map(PartitionStateMachine::partition);
    }

    /** This broker's replica of {@code tp} as Raft sees it; empty when it hosts none or it is still starting. */
    @Override
    public Optional<ReplicaRaftState> replicaRaftState(TopicPartition tp) {
        UUID gid = groupsByPartition.get(tp);
        PartitionStateMachine machine = gid == null ? null : partitions.get(gid);
        Partition partition = machine == null ? null : machine.partition();
        java.util.OptionalLong start = partition == null ? java.util.OptionalLong.empty()
                : host.raftLogStartIndex(RaftGroupId.valueOf(gid));
        Optional<GroupRole> role = start.isEmpty() ? Optional.empty() : host.role(RaftGroupId.valueOf(gid));
        if (role.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ReplicaRaftState(start.getAsLong(), role.get().appliedRaftIndex(),
                partition.logStartOffset(), partition.highWatermark(), machine.snapshotsInstalled()));
    }

    @Override
    public Leadership leadership(TopicPartition tp) {
        return Optional.ofNullable(groupsByPartition.get(tp)).flatMap(gid -> host.role(RaftGroupId.valueOf(gid)))
                .map(role -> new Leadership(role.leaderNodeId(), (int) role.term(), role.isLeader()))
                .orElse(Leadership.UNKNOWN);
    }

    /** See {@link ReplicaStatePublisher#publishPartitionStates}. */
    @Override
    public void publishPartitionStates(long nowMs, long replicaLagTimeMaxMs) {
        statePublisher.publishPartitionStates(nowMs, replicaLagTimeMaxMs);
    }

    /** See {@link ReplicaStatePublisher#publishBrokerLiveness}. */
    public void publishBrokerLiveness(long brokerSessionTimeoutMs) {
        statePublisher.publishBrokerLiveness(brokerSessionTimeoutMs);
    }

    /** Steps reassignments this broker leads, removes replicas not placed here, closes deleted groups' clients. */
    @Override
    public void driveReassignments(long transferTimeoutMs, long nowMs) {
        reassignments.drive(transferTimeoutMs);
        Optional<MetadataImage> caughtUp = caughtUpImage();
        reconciler.sweepOrphans(caughtUp.orElseGet(metadata::image), caughtUp.isPresent(), nowMs);
        leaderClients.retainGroupsOf(metadata.image());
    }

    /** The metadata image when it holds every metadata entry this broker knows committed; empty during a replay. */
    public Optional<MetadataImage> caughtUpImage() {
        return host.caughtUp(METADATA_GROUP) ? Optional.of(metadata.image()) : Optional.empty();
    }

    @Override
    public void handOverOfflineLeaderships(long nowMs, long transferTimeoutMs) {
        balancer.handOverOfflineLeaderships(nowMs, transferTimeoutMs);
    }

    @Override
    public void balanceLeadership(long nowMs, long transferTimeoutMs) {
        balancer.balanceLeadership(nowMs, transferTimeoutMs);
    }

    /** What this broker submits as a partition leader on the maintenance timer: retention, configs, compaction. */
    @Override
    public PartitionLeaderJobs leaderJobs() {
        return leaderJobs;
    }

    @Override
    public void onAppend(Consumer<TopicPartition> listener) {
        appendListeners.add(listener);
    }

    /** Closes the Raft side within {@link #CLOSE_MS_MAX}, also when every peer is closing too (see RaftShutdown). */
    @Override
    public void close() {
        RaftShutdown.close(nodeId, reconciler, leaderClients, metadataClient, metadataApplied::releaseAll, host,
                offsets);
    }
}
