package dev.cairn.broker.engine;

import dev.cairn.broker.engine.rpc.LeaderSide;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What this broker does for leader RPCs from other brokers: the same calls as its own handlers make, on the
 * partition of the engine group named, answered NOT_LEADER_OR_FOLLOWER when it does not lead and serve it here.
 */
final class EngineLeaderSide implements LeaderSide {
    private final Supplier<EnginePartitions> partitions;

    /** @param partitions this broker's partitions (built after the RPC that calls into them) */
    EngineLeaderSide(Supplier<EnginePartitions> partitions) {
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Result> submit(int group, Command command, long timeoutMs) {
        EnginePartitions here = partitions.get();
        EngineGroups.Hosted hosted = here == null ? null : here.hostedGroup(group);
        if (hosted == null || !here.leadership(hosted.tp()).local()) {
            return notLeader(group);
        }
        return here.submit(hosted.tp(), command, timeoutMs);
    }

    @Override
    public CompletableFuture<Result> committedOffset(int group, String groupId, boolean requireStable) {
        EnginePartitions here = partitions.get();
        EngineGroups.Hosted hosted = here == null ? null : here.hostedGroup(group);
        return hosted == null ? notLeader(group) : here.committedOffsetHere(hosted.tp(), groupId, requireStable);
    }

    @Override
    public CompletableFuture<Result> committedGroups(int group) {
        EnginePartitions here = partitions.get();
        EngineGroups.Hosted hosted = here == null ? null : here.hostedGroup(group);
        return hosted == null ? notLeader(group) : here.committedGroupsHere(hosted.tp());
    }

    @Override
    public CompletableFuture<ByteBuffer> committedBatches(int group, long fromOffset, int maxBytes) {
        EnginePartitions here = partitions.get();
        EngineGroups.Hosted hosted = here == null ? null : here.hostedGroup(group);
        if (hosted == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("engine group " + group
                    + " is not hosted here"));
        }
        // A disk read: off the calling event loop. Rare (a replica refilling what a machine crash took).
        return CompletableFuture.supplyAsync(() -> {
            try {
                return hosted.machine().partition().read(fromOffset, maxBytes).readBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> transferLeadership(int group, int toNode, long timeoutMs) {
        EnginePartitions here = partitions.get();
        EngineGroups.Hosted hosted = here == null ? null : here.hostedGroup(group);
        if (hosted == null || !here.leadership(hosted.tp()).local()) {
            return CompletableFuture.completedFuture(false);
        }
        return here.transferLeadership(hosted.tp(), toNode, timeoutMs);
    }

    private static CompletableFuture<Result> notLeader(int group) {
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                "engine group " + group + " is not led here"));
    }
}
