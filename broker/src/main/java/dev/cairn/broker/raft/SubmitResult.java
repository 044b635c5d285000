package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;

/** What became of a command submitted to a Raft group; the caller maps these to Kafka error codes. */
public sealed interface SubmitResult {

    /** Committed and applied; {@code reply} is what the state machine answered. */
    record Applied(ByteBuffer reply) implements SubmitResult {
    }

    /** This server is not the group's leader; {@code leaderId} is its best guess, or null. */
    record NotLeader(String leaderId) implements SubmitResult {
    }

    /** Anything else (timeout, group closing, state machine error): the outcome may be unknown. */
    record Failed(Throwable cause) implements SubmitResult {
    }

    static SubmitResult of(RaftClientReply reply) {
        NotLeaderException notLeader = reply.getNotLeaderException();
        if (notLeader != null) {
            return new NotLeader(notLeader.getSuggestedLeader() == null ? null
                    : notLeader.getSuggestedLeader().getId().toString());
        }
        if (!reply.isSuccess()) {
            RaftException exception = reply.getException();
            if (WriteOncePath.appendedNothing(exception)) {
                return new NotLeader(null);   // the leader could not place it yet: retriable, nothing appended
            }
            return new Failed(exception != null ? exception : new IllegalStateException("unsuccessful reply"));
        }
        return new Applied(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    /**
     * The Kafka answer to a command submitted to {@code tp}'s group on {@code nodeId}: the applied result, or the
     * error of the failure ({@code offline}: the partition's storage failure here, or null).
     */
    static Result toResult(TopicPartition tp, int nodeId, SubmitResult result, StorageException offline) {
        if (result instanceof Applied applied) {
            return CommandCodec.decodeResult(applied.reply());
        }
        if (result instanceof NotLeader) {
            return new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, tp + ": broker " + nodeId
                    + " is not the leader");
        }
        if (offline != null) {
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + ": " + offline.getMessage());
        }
        return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": outcome unknown: "
                + ((Failed) result).cause());
    }

    /** The answer to a submit that did not complete in time, or failed before reaching the group. */
    static Result timedOut(TopicPartition tp, Throwable error) {
        if (error instanceof TimeoutException) {
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": not committed in time");
        }
        return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": " + error);
    }
}
