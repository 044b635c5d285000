package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataChange;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionHost;
import dev.cairn.broker.cluster.PartitionLeaderJobs;
import dev.cairn.broker.cluster.ReplicaRaftState;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.net.RaftFrameTls;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.broker.engine.rpc.EngineRpc;
import dev.cairn.raft.runtime.GroupStatus;
import dev.cairn.raft.runtime.ProposalRefusedException;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's partitions on Cairn's own multi-Raft engine ({@code raft.engine=cairn}, docs/multi-raft.md): every
 * partition its own Raft group, all groups sharing the engine's loops, log and connections. Commands are proposed
 * on the caller's thread without blocking it (the engine queues them); the leader's answer is the {@link Result}
 * its replica's apply returned. Groups come and go with metadata ({@link EngineGroups}).
 *
 */
public final class EnginePartitions implements PartitionHost {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePartitions.class);
    /** The partitions' snapshots, a directory per group (the layout of the Ratis path's {@code sm/}). */
    static final String SNAPSHOT_DIRECTORY = "engine-snapshots";
    private final int nodeId;
    private final Supplier<MetadataImage> images;
    private final Supplier<Optional<MetadataImage>> caughtUpImages;
    private final EngineGroups groups;
    private final EngineLeaderships leaderships;
    private final List<Consumer<TopicPartition>> appendListeners;
    private final EngineRpc rpc;
    private final EngineForwarding forwarding;
    private final String engineAddress;
    private final PartitionLeaderJobs leaderJobs;
    private final EngineStatePublisher statePublisher;
    private final EngineLeadershipMoves moves;
    private final EngineReassignments reassignments;

    /**
     * @param groups the engine and the groups it hosts, started
     * @param appendListeners told of every append (the groups' machines call them)
     * @param forwarding reaches leaders on other brokers
     * @param images the metadata image, for the leader's jobs and the partition states it publishes
     * @param caughtUpImages the metadata image when it holds every committed entry (the orphan sweep)
     * @param metadataSubmit submits a metadata command (partition states, completed reassignments)
     */
    EnginePartitions(int nodeId, EngineGroups groups, EngineLeaderships leaderships,
            List<Consumer<TopicPartition>> appendListeners, EngineRpc rpc, EngineForwarding forwarding,
            String engineAddress, Supplier<MetadataImage> images, Supplier<Optional<MetadataImage>> caughtUpImages,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> metadataSubmit) {
        this.nodeId = nodeId;
        this.images = images;
        this.caughtUpImages = caughtUpImages;
        this.groups = groups;
        this.leaderships = leaderships;
        this.appendListeners = appendListeners;
        this.rpc = rpc;
        this.forwarding = forwarding;
        this.engineAddress = engineAddress;
        this.leaderJobs = new PartitionLeaderJobs(groups::hostedPartitions, this::leaderReplica, images,
                this::submit);
        this.statePublisher = new EngineStatePublisher(nodeId, groups, leaderships, images, metadataSubmit);
        this.moves = new EngineLeadershipMoves(nodeId, groups, leaderships, images, this::transferLeadership);
        this.reassignments = new EngineReassignments(nodeId, groups::engine, groups::hosted, images, metadataSubmit);
    }

    /**
     * Starts the engine (its log in {@code <dataDir>/raft-engine}, its frames and the leader RPC on
     * raft.engine.listener) and every group of the local index, before the metadata group replays.
     *
     * @param images the metadata image: leaders' jobs, partition states, other brokers' engine addresses
     * @param caughtUpImages the metadata image when it holds every entry this broker knows committed, else empty
     * @param metadataSubmit submits a metadata command (partition states, completed reassignments)
     */
    public static EnginePartitions start(BrokerConfig config, FileIo io, Path dataDir, LogConfig logConfig,
            OffsetStore offsets, Supplier<MetadataImage> images, Supplier<Optional<MetadataImage>> caughtUpImages,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> metadataSubmit, RaftFrameTls tls)
            throws IOException, InterruptedException {
        return EngineStart.start(config, new EngineGroups.Storage(io, dataDir.resolve("logs"), logConfig, offsets,
                dataDir.resolve(SNAPSHOT_DIRECTORY), config.raftSnapshotIntervalBytes(),
                config.raftSnapshotIntervalEntries()), dataDir, images, caughtUpImages, metadataSubmit, tls);
    }

    /** Hands a metadata change to the groups' reconciler; never blocks the metadata apply thread. */
    public void onMetadataChange(MetadataChange change) {
        groups.onMetadataChange(change);
    }

    /** The engine's thread count (loops, liveness, apply threads), for metrics and the scale benchmark. */
    public int engineThreads() {
        return groups.engine().threadCount();
    }

    // ---------------------------------------------------------------- ReplicatedPartitions

    @Override
    public CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        if (hosted == null) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + " is not hosted on broker " + nodeId));
        }
        RaftEngine engine = groups.engine();
        return EngineTxnAdmission.propose(engine, hosted, command)
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .handle((value, error) -> error == null ? applied(tp, value) : failed(tp, hosted, error));
    }

    private static Result applied(TopicPartition tp, Object value) {
        if (value instanceof Result result) {
            return result;
        }
        // Only a no-op or a replayed entry applies to null, never a proposal; kept as an answer rather than a throw.
        return new Result.Rejected(ErrorCode.UNKNOWN_SERVER_ERROR, tp + ": the command applied without a result");
    }

    private Result failed(TopicPartition tp, EngineGroups.Hosted hosted, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        StorageException offline = hosted.machine().offlineCause();
        if (offline != null) {
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + ": " + offline.getMessage());
        }
        if (cause instanceof TimeoutException) {
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": not committed in time");
        }
        if (cause instanceof ProposalRefusedException refused) {
            switch (refused.reason()) {
                case NOT_LEADER:
                case UNKNOWN_GROUP:
                case REPLACED:
                    return new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, tp + ": broker " + nodeId
                            + " is not the leader (" + refused.getMessage() + ")");
                default:
                    return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": " + refused.getMessage());
            }
        }
        return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": outcome unknown: " + cause);
    }

    @Override
    public CompletableFuture<Result> submitViaLeader(TopicPartition tp, Command command, long timeoutMs) {
        if (leadership(tp).local()) {
            return submit(tp, command, timeoutMs);
        }
        EngineGroups.Hosted hosted = groups.hosted(tp);
        int group = hosted != null ? hosted.group() : metadataGroup(tp);
        if (group == 0) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + " is not known to broker " + nodeId));
        }
        return forwarding.call(tp, timeoutMs, () -> leaderOf(tp, hosted), leftMs -> submit(tp, command, leftMs),
                (leader, leftMs) -> rpc.submit(leader, group, command, leftMs));
    }

    @Override
    public CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId, boolean requireStable,
            long timeoutMs) {
        return readAtLeader(tp, timeoutMs, () -> committedOffsetHere(tp, groupId, requireStable),
                (leader, group, leftMs) -> rpc.committedOffset(leader, group, groupId, requireStable, leftMs));
    }

    @Override
    public CompletableFuture<Result> committedGroups(TopicPartition tp, long timeoutMs) {
        return readAtLeader(tp, timeoutMs, () -> committedGroupsHere(tp),
                (leader, group, leftMs) -> rpc.committedGroups(leader, group, leftMs));
    }

    /** A read at another broker's leader, through the leader RPC. */
    private interface RemoteRead {
        CompletableFuture<Result> read(int leader, int group, long timeoutMs);
    }

    private CompletableFuture<Result> readAtLeader(TopicPartition tp, long timeoutMs,
            Supplier<CompletableFuture<Result>> here, RemoteRead remote) {
        if (leaderReplica(tp).isPresent()) {
            return here.get();
        }
        EngineGroups.Hosted hosted = groups.hosted(tp);
        int group = hosted != null ? hosted.group() : metadataGroup(tp);
        if (group == 0) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    tp + " is not known to broker " + nodeId));
        }
        return forwarding.call(tp, timeoutMs, () -> leaderOf(tp, hosted), leftMs -> here.get(),
                (leader, leftMs) -> remote.read(leader, group, leftMs));
    }

    /** Who leads: as this broker's engine sees it for a hosted partition, as metadata says otherwise. */
    private Leadership leaderOf(TopicPartition tp, EngineGroups.Hosted hosted) {
        if (hosted != null) {
            return leaderships.leadership(hosted.group());
        }
        return images.get().partitionState(tp).map(state -> new Leadership(state.leaderId(), state.leaderEpoch(),
                false)).orElse(Leadership.UNKNOWN);
    }

    /** The group of a partition this broker hosts no replica of, from metadata; 0 when metadata has none. */
    private int metadataGroup(TopicPartition tp) {
        return images.get().topic(tp.topic()).filter(t -> tp.partition() < t.partitionCount())
                .map(t -> t.raftGroup(tp.partition())).orElse(0);
    }

    /** The committed offset read from this broker's replica, when it leads (the leader RPC's server side). */
    CompletableFuture<Result> committedOffsetHere(TopicPartition tp, String groupId, boolean requireStable) {
        return readLed(tp, partition -> OffsetQueries.committedOffset(partition, groupId, requireStable));
    }

    /** The consumer groups read from this broker's replica, when it leads (the leader RPC's server side). */
    CompletableFuture<Result> committedGroupsHere(TopicPartition tp) {
        return readLed(tp, partition -> new Result.GroupsListed(List.copyOf(partition.committedOffsets().keySet())));
    }

    /** The hosted group {@code group}, or null. */
    EngineGroups.Hosted hostedGroup(int group) {
        return groups.hostedGroup(group);
    }

    /** Reads the leader's applied state here; a follower's replica is never read (it may lag by a heartbeat). */
    private CompletableFuture<Result> readLed(TopicPartition tp, Function<Partition, Result> read) {
        Optional<Partition> led = leaderReplica(tp);
        if (led.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, tp
                    + ": broker " + nodeId + " does not lead it"));
        }
        try {
            return CompletableFuture.completedFuture(read.apply(led.get()));
        } catch (StorageException e) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR,
                    e.getMessage()));
        }
    }

    @Override
    public Optional<Partition> leaderReplica(TopicPartition tp) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        if (hosted == null || hosted.machine().offlineCause() != null || !leaderships.serving(hosted.group())) {
            return Optional.empty();
        }
        return Optional.of(hosted.machine().partition());
    }

    @Override
    public Leadership leadership(TopicPartition tp) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        return hosted == null ? Leadership.UNKNOWN : leaderships.leadership(hosted.group());
    }

    @Override
    public void onAppend(Consumer<TopicPartition> listener) {
        appendListeners.add(listener);
    }

    // ---------------------------------------------------------------- PartitionHost

    /**
     * As the leader here: asks the engine to hand over, done once the target is reported leading. Otherwise the
     * leader is asked through the leader RPC (ElectLeaders reaches the controller, which need not lead).
     */
    @Override
    public CompletableFuture<Boolean> transferLeadership(TopicPartition tp, int toNode, long timeoutMs) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        int group = hosted != null ? hosted.group() : metadataGroup(tp);
        if (group == 0) {
            return CompletableFuture.completedFuture(false);
        }
        if (hosted == null || !leadership(tp).local()) {
            int leader = hosted == null ? images.get().partitionState(tp).map(s -> s.leaderId()).orElse(-1)
                    : leaderships.leadership(group).leaderId();
            return leader < 0 || leader == nodeId ? CompletableFuture.completedFuture(false)
                    : rpc.transferLeadership(leader, group, toNode, timeoutMs);
        }
        CompletableFuture<Boolean> led = leaderships.awaitLeader(group, toNode + 1, timeoutMs);
        if (!led.isDone()) {
            groups.engine().transferLeadership(group, toNode + 1);
        }
        return led;
    }

    @Override
    public String engineAddress() {
        return engineAddress;
    }

    @Override
    public int replicasPerBrokerMax() {
        return dev.cairn.broker.config.Limits.ENGINE_PARTITIONS_PER_BROKER_MAX;
    }

    /** Whatever the broker's {@code message.max.bytes}: a topic may allow up to what one engine entry carries. */
    @Override
    public int batchBytesMax(int brokerMessageMaxBytes) {
        return dev.cairn.broker.config.RaftEngineKeys.ENGINE_BATCH_BYTES_MAX;
    }

    /** Reassignments change a group's voters one at a time ({@link EngineReassignments}). */
    @Override
    public boolean supportsReassignment() {
        return true;
    }

    @Override
    public Map<TopicPartition, Partition> localReplicasByPartition() {
        Map<TopicPartition, Partition> replicas = new HashMap<>();
        for (TopicPartition tp : groups.hostedPartitions()) {
            EngineGroups.Hosted hosted = groups.hosted(tp);
            if (hosted != null) {
                replicas.put(tp, hosted.machine().partition());
            }
        }
        return replicas;
    }

    @Override
    public Optional<Partition> localReplica(TopicPartition tp) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        return Optional.ofNullable(hosted == null ? null : hosted.machine().partition());
    }

    @Override
    public Optional<ReplicaRaftState> replicaRaftState(TopicPartition tp) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        if (hosted == null) {
            return Optional.empty();
        }
        Partition partition = hosted.machine().partition();
        GroupStatus status = groups.engine().status(hosted.group());
        if (status == null) {
            return Optional.empty();
        }
        return Optional.of(new ReplicaRaftState(status.snapshotIndex() + 1, partition.appliedRaftIndex(),
                partition.logStartOffset(), partition.highWatermark(), hosted.machine().snapshotsInstalled()));
    }

    @Override
    public void publishPartitionStates(long nowMs, long replicaLagTimeMaxMs) {
        statePublisher.publish(nowMs, replicaLagTimeMaxMs);
    }

    /**
     * Takes the next step of the reassignments of groups this broker leads, and removes hosted groups that caught-up
     * metadata no longer places here (replicas a reassignment moved away, see {@link EngineGroups#sweepOrphans}).
     */
    @Override
    public void driveReassignments(long transferTimeoutMs, long nowMs) {
        reassignments.drive(transferTimeoutMs);
        groups.sweepOrphans(caughtUpImages.get(), nowMs);
    }

    @Override
    public void handOverOfflineLeaderships(long nowMs, long transferTimeoutMs) {
        moves.handOverOffline(transferTimeoutMs);
    }

    @Override
    public void balanceLeadership(long nowMs, long transferTimeoutMs) {
        moves.balance(transferTimeoutMs);
    }

    @Override
    public PartitionLeaderJobs leaderJobs() {
        return leaderJobs;
    }

    @Override
    public void close() {
        forwarding.close();
        rpc.close();
        groups.close();
    }
}
