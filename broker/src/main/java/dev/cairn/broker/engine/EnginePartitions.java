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
import dev.cairn.broker.config.HostPort;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.net.RaftFrameTransport;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.GroupStatus;
import dev.cairn.raft.runtime.ProposalRefusedException;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * <p>One broker for now: no forwarding to a leader on another broker (submitViaLeader and leader reads answer
 * NOT_LEADER_OR_FOLLOWER when this broker does not lead), in-sync replicas are the leader alone, and there is
 * nobody to move leaderships or replicas to. {@code BrokerConfig} refuses raft.engine=cairn with other voters.
 */
public final class EnginePartitions implements PartitionHost {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePartitions.class);
    /** The engine's log and loop count, under the data directory (Ratis keeps {@code raft/}). */
    static final String ENGINE_DIRECTORY = "raft-engine";
    /** The partitions' snapshots, a directory per group (the layout of the Ratis path's {@code sm/}). */
    static final String SNAPSHOT_DIRECTORY = "engine-snapshots";
    /** The exit status of a broker whose engine stopped (sysexits' EX_IOERR), as the Maelstrom node uses. */
    static final int EXIT_ENGINE_STOPPED = 74;

    private final int nodeId;
    private final EngineGroups groups;
    private final EngineLeaderships leaderships;
    private final List<Consumer<TopicPartition>> appendListeners;
    private final PartitionLeaderJobs leaderJobs;
    private final EngineStatePublisher statePublisher;

    /**
     * @param groups the engine and the groups it hosts, started
     * @param appendListeners told of every append (the groups' machines call them)
     * @param images the metadata image, for the leader's jobs and the partition states it publishes
     * @param metadataSubmit submits a metadata command (partition states)
     */
    private EnginePartitions(int nodeId, EngineGroups groups, EngineLeaderships leaderships,
            List<Consumer<TopicPartition>> appendListeners, Supplier<MetadataImage> images,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> metadataSubmit) {
        this.nodeId = nodeId;
        this.groups = groups;
        this.leaderships = leaderships;
        this.appendListeners = appendListeners;
        this.leaderJobs = new PartitionLeaderJobs(groups::hostedPartitions, this::leaderReplica, images,
                this::submit);
        this.statePublisher = new EngineStatePublisher(nodeId, groups, leaderships, images, metadataSubmit);
    }

    /**
     * Starts the engine (its log in {@code <dataDir>/raft-engine}, its frames on raft.engine.listener) and every
     * group of the local index, before the metadata group replays.
     *
     * @param images the metadata image, for the leader's jobs and the partition states it publishes
     * @param metadataSubmit submits a metadata command (partition states)
     */
    public static EnginePartitions start(BrokerConfig config, FileIo io, Path dataDir, LogConfig logConfig,
            OffsetStore offsets, Supplier<MetadataImage> images,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> metadataSubmit)
            throws IOException, InterruptedException {
        EngineConfig engineConfig = engineConfig(config);
        EngineLeaderships leaderships = new EngineLeaderships(engineConfig.selfId());
        List<Consumer<TopicPartition>> listeners = new CopyOnWriteArrayList<>();
        RaftEngine[] engine = new RaftEngine[1];
        HostPort bind = config.raftEngineListener();
        // One broker: no peers to reach yet (frames to an unknown peer are dropped; Raft resends).
        RaftFrameTransport transport = RaftFrameTransport.start(new InetSocketAddress(bind.host(), bind.port()),
                peer -> null, frame -> engine[0].deliver(frame), 1);
        EngineGroups groups = null;
        try {
            engine[0] = RaftEngine.start(engineConfig, dataDir.resolve(ENGINE_DIRECTORY), transport, leaderships,
                    cause -> {
                        LOG.error("the Raft engine stopped (its log could not be written, or a partition's state "
                                + "machine failed); stopping the broker so that its partitions lead elsewhere", cause);
                        Runtime.getRuntime().halt(EXIT_ENGINE_STOPPED);
                    });
            EngineGroups.Storage storage = new EngineGroups.Storage(io, dataDir.resolve("logs"), logConfig, offsets,
                    dataDir.resolve(SNAPSHOT_DIRECTORY), config.raftSnapshotIntervalBytes(),
                    config.raftSnapshotIntervalEntries());
            groups = new EngineGroups(config.nodeId(), engine[0], transport, new EngineGroupIndex(dataDir),
                    leaderships, storage, tp -> listeners.forEach(listener -> listener.accept(tp)));
            groups.createIndexed();
        } catch (IOException | RuntimeException e) {
            if (groups != null) {
                groups.close();
            } else {
                if (engine[0] != null) {
                    engine[0].close();
                }
                transport.close();
            }
            throw e;
        }
        LOG.info("raft.engine=cairn: Raft frames on {}:{}, log in {}, fsync before acknowledging: {}", bind.host(),
                transport.port(), dataDir.resolve(ENGINE_DIRECTORY), engineConfig.fsync());
        return new EnginePartitions(config.nodeId(), groups, leaderships, listeners, images, metadataSubmit);
    }

    /**
     * The engine's settings from the broker's: replica id node.id + 1 (the engine's ids start at 1), a loop per core,
     * the log forced before acknowledging exactly when log.flush.interval.messages=1 (otherwise written to the
     * operating system, as the Ratis path does), and partitions applied on a pool beside the loops, so that one
     * partition's slow disk holds up its own group only.
     */
    static EngineConfig engineConfig(BrokerConfig config) {
        return EngineConfig.defaults(config.nodeId() + 1).withFsync(config.fsyncBeforeAck())
                .withApplyThreads(Math.max(2, Runtime.getRuntime().availableProcessors()));
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
        return engine.proposeOwned(hosted.group(), EnginePartitionMachine.encode(command))
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
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, tp
                + ": broker " + nodeId + " does not lead it, and raft.engine=cairn does not forward to another broker "
                + "yet"));
    }

    @Override
    public CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId, boolean requireStable,
            long timeoutMs) {
        return readLed(tp, partition -> OffsetQueries.committedOffset(partition, groupId, requireStable));
    }

    @Override
    public CompletableFuture<Result> committedGroups(TopicPartition tp, long timeoutMs) {
        return readLed(tp, partition -> new Result.GroupsListed(List.copyOf(partition.committedOffsets().keySet())));
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

    @Override
    public CompletableFuture<Boolean> transferLeadership(TopicPartition tp, int toNode, long timeoutMs) {
        EngineGroups.Hosted hosted = groups.hosted(tp);
        if (hosted == null) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> led = leaderships.awaitLeader(hosted.group(), toNode + 1, timeoutMs);
        if (!led.isDone() && leadership(tp).local()) {
            groups.engine().transferLeadership(hosted.group(), toNode + 1);
        }
        return led;
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
        statePublisher.publish();
    }

    /** One broker: no replica to move anywhere (AlterPartitionReassignments names only registered brokers). */
    @Override
    public void driveReassignments(long transferTimeoutMs, long nowMs) {
    }

    /** One broker: no other replica to hand an offline partition's leadership to. */
    @Override
    public void handOverOfflineLeaderships(long nowMs, long transferTimeoutMs) {
    }

    /** One broker: every partition's preferred replica is this one, which leads it. */
    @Override
    public void balanceLeadership(long nowMs, long transferTimeoutMs) {
    }

    @Override
    public PartitionLeaderJobs leaderJobs() {
        return leaderJobs;
    }

    @Override
    public void close() {
        groups.close();
    }
}
