package dev.cairn.broker.api;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Partition groups without Raft: real {@link Partition}s over a simulated disk, applied in submission order.
 * A partition is led locally (node {@link #LOCAL_NODE_ID}), by another node, or not at all; tests can make the
 * next submits answer a canned result (a timeout, say) instead of applying.
 */
final class FakeReplicatedPartitions implements ReplicatedPartitions {
    static final int LOCAL_NODE_ID = 1;
    private static final int LEADER_EPOCH = 3;

    private final SimulatedFileIo io = new SimulatedFileIo(7);
    private final InMemoryOffsetStore offsets = new InMemoryOffsetStore(io);
    private final Map<TopicPartition, Partition> replicas = new HashMap<>();
    private final Map<TopicPartition, Leadership> leaderships = new HashMap<>();
    private final Map<TopicPartition, Long> raftIndexes = new HashMap<>();
    private final List<Command> submitted = new ArrayList<>();
    private Result cannedResult;
    private java.util.function.Predicate<Command> held = command -> false;
    private final List<Runnable> heldReleases = new ArrayList<>();

    /** Hosts a replica of {@code tp} here and makes this broker its ready leader. */
    synchronized Partition leadLocally(TopicPartition tp) {
        Partition partition = replicas.computeIfAbsent(tp, key -> new Partition(key.topic(), key.partition(),
                Log.open(io, Path.of("/data/" + key), LogConfig.defaults()), offsets));
        leaderships.put(tp, new Leadership(LOCAL_NODE_ID, LEADER_EPOCH, true));
        return partition;
    }

    /** Another broker leads {@code tp}; this one hosts no ready leader for it. */
    synchronized void ledElsewhere(TopicPartition tp, int leaderId) {
        leaderships.put(tp, new Leadership(leaderId, LEADER_EPOCH, false));
    }

    /** The next submits answer {@code result} without applying anything (null restores normal behaviour). */
    synchronized void answerSubmitsWith(Result result) {
        cannedResult = result;
    }

    /**
     * Submits through a leader of commands matching {@code which} wait until {@link #release} lets them apply, so a
     * test can end them in an order of its choosing.
     */
    synchronized void holdSubmitsViaLeader(java.util.function.Predicate<Command> which) {
        held = which;
    }

    /** Applies the {@code index}th held submit (in the order they were held) and completes it. */
    void release(int index) {
        Runnable release;
        synchronized (this) {
            release = heldReleases.get(index);
        }
        release.run();
    }

    synchronized List<Command> submitted() {
        return List.copyOf(submitted);
    }

    /** Applies {@code command} to the local replica as the next Raft entry, as the state machine would. */
    synchronized Result apply(TopicPartition tp, Command command) {
        long raftIndex = raftIndexes.merge(tp, 1L, Long::sum);
        return replicas.get(tp).apply(raftIndex, LEADER_EPOCH, command);
    }

    @Override
    public synchronized CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs) {
        submitted.add(command);
        if (cannedResult != null) {
            return CompletableFuture.completedFuture(cannedResult);
        }
        if (!leadership(tp).local()) {
            return CompletableFuture.completedFuture(
                    new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "not the leader of " + tp));
        }
        return CompletableFuture.completedFuture(apply(tp, command));
    }

    /**
     * Like {@link #submit} when the partition is led here. A partition led elsewhere has no replica in this fake,
     * so the call through its leader is answered as the real one answers an unreachable leader.
     */
    @Override
    public synchronized CompletableFuture<Result> submitViaLeader(TopicPartition tp, Command command,
            long timeoutMs) {
        if (held.test(command)) {
            CompletableFuture<Result> later = new CompletableFuture<>();
            heldReleases.add(() -> submit(tp, command, timeoutMs).thenAccept(later::complete));
            return later;
        }
        if (leadership(tp).local()) {
            return submit(tp, command, timeoutMs);
        }
        submitted.add(command);
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                tp + ": leader unreachable"));
    }

    @Override
    public synchronized CompletableFuture<Result> committedOffset(TopicPartition tp, String groupId,
            boolean requireStable, long timeoutMs) {
        Optional<Partition> replica = leaderReplica(tp);
        if (replica.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                    tp + ": leader unreachable"));
        }
        return CompletableFuture.completedFuture(OffsetQueries.committedOffset(replica.get(), groupId, requireStable));
    }

    @Override
    public synchronized CompletableFuture<Result> committedGroups(TopicPartition tp, long timeoutMs) {
        Optional<Partition> replica = leaderReplica(tp);
        if (replica.isEmpty()) {
            return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                    tp + ": leader unreachable"));
        }
        return CompletableFuture.completedFuture(new Result.GroupsListed(List.copyOf(
                replica.get().committedOffsets().keySet())));
    }

    @Override
    public synchronized Optional<Partition> leaderReplica(TopicPartition tp) {
        return leadership(tp).local() ? Optional.ofNullable(replicas.get(tp)) : Optional.empty();
    }

    @Override
    public synchronized Leadership leadership(TopicPartition tp) {
        return leaderships.getOrDefault(tp, Leadership.UNKNOWN);
    }

    @Override
    public void onAppend(Consumer<TopicPartition> listener) {
    }
}
