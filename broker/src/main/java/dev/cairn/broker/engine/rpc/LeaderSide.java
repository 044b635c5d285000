package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * What a broker does for requests that reach it as a group's leader ({@link EngineRpc}'s server side); the broker's
 * engine partitions implement it. Each call arrives on a Netty event loop thread, so none may block: each returns a
 * future, and the answer is sent from whatever thread completes it. A broker that does not lead the group answers
 * {@code Result.Rejected(NOT_LEADER_OR_FOLLOWER)} (false for a transfer), which the requester passes on. A call that
 * throws, returns null, or completes exceptionally is answered for it (UNKNOWN_SERVER_ERROR, or REQUEST_TIMED_OUT for
 * a TimeoutException; false for a transfer).
 */
public interface LeaderSide {

    /** Submits {@code command} to engine group {@code group} here, its Result within {@code timeoutMs}. */
    CompletableFuture<Result> submit(int group, Command command, long timeoutMs);

    /** The committed offset of consumer group {@code groupId} in engine group {@code group}, read here. */
    CompletableFuture<Result> committedOffset(int group, String groupId, boolean requireStable);

    /** The consumer groups with a committed offset in engine group {@code group}, read here. */
    CompletableFuture<Result> committedGroups(int group);

    /**
     * The committed batches of engine group {@code group}'s partition from {@code fromOffset}, about
     * {@code maxBytes} (none when this replica has none there yet); any replica hosting the group may answer.
     */
    CompletableFuture<ByteBuffer> committedBatches(int group, long fromOffset, int maxBytes);

    /** Hands engine group {@code group}'s leadership to broker {@code toNode}: true once it leads, in time. */
    CompletableFuture<Boolean> transferLeadership(int group, int toNode, long timeoutMs);
}
