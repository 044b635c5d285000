package dev.cairn.broker.raft;

import java.nio.ByteBuffer;
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
}
