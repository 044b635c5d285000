package dev.cairn.broker.raft;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * A command another broker asks a partition's leader to submit through its own submit lane ({@link SubmitLanes}),
 * sent as a read-only Raft query. A command the leader places (a transaction marker) must be started on the lane:
 * sent as a Raft write, Ratis would start it on the thread that received it, racing the lane's appends, and the
 * write-once path would refuse whichever of the two entered the Raft log out of placement order.
 *
 * <p>KIP-890 verifications are forwarded too: they are many (one per partition a transaction opens), change no state,
 * and must not wait in Ratis's ordered client, whose window of outstanding requests stalled for tens of seconds at a
 * time under three-broker load (LeaderClients sends queries unordered).
 *
 * <p>Layout: format version, {@link #QUERY_FORWARDED_COMMAND} (query tags 1-3 are CommandCodec's and PlacementCodec's),
 * the submit timeout in milliseconds (int), then the command as CommandCodec encodes it. A retried query may submit
 * its command twice; only commands whose repetition is harmless are forwarded (a second marker of a transaction
 * already ended is a control batch with no transaction to end; a second verification changes nothing).
 */
final class ForwardedCommand {
    static final byte QUERY_FORWARDED_COMMAND = 4;
    private static final int HEADER_BYTES = 2 + 4;
    /** The longest submit a forwarded command may ask for; a longer one is cut to this. */
    static final int TIMEOUT_MS_MAX = 60_000;
    /** For a state machine no broker forwards to (tests, a single replica): every forwarded command is refused. */
    static final BiFunction<Command, Long, CompletableFuture<Result>> NOT_SERVED = (command, timeoutMs) ->
            CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    "this replica takes no forwarded commands"));

    private ForwardedCommand() {
    }

    /**
     * Whether another broker forwards {@code command} rather than writing it: the leader places it itself (a
     * marker), or it is a verification (see above).
     */
    static boolean forwarded(Command command) {
        return command instanceof Command.TxnMarker || command instanceof Command.TxnVerify;
    }

    static ByteBuffer encode(Command command, long timeoutMs) {
        ByteBuffer encoded = CommandCodec.encode(command);
        return ByteBuffer.allocate(HEADER_BYTES + encoded.remaining()).put(CommandCodec.FORMAT_VERSION)
                .put(QUERY_FORWARDED_COMMAND).putInt((int) Math.min(Integer.MAX_VALUE, timeoutMs)).put(encoded).flip();
    }

    static boolean isForwarded(ByteBuffer query) {
        return query.remaining() > HEADER_BYTES && query.get(query.position()) == CommandCodec.FORMAT_VERSION
                && query.get(query.position() + 1) == QUERY_FORWARDED_COMMAND;
    }

    /**
     * Submits the forwarded command through {@code submit} (this leader's lane) and answers with its encoded result;
     * a malformed command or a timeout outside the allowed range is answered INVALID_REQUEST, never submitted.
     */
    static CompletableFuture<Message> handle(ByteBuffer query,
            BiFunction<Command, Long, CompletableFuture<Result>> submit) {
        int timeoutMs = query.getInt(query.position() + 2);
        Command command;
        try {
            command = CommandCodec.decodeCommand(query.duplicate().position(query.position() + HEADER_BYTES).slice());
        } catch (CommandFormatException e) {
            return answer(new Result.Rejected(ErrorCode.INVALID_REQUEST, "forwarded command: " + e.getMessage()));
        }
        if (!forwarded(command) || timeoutMs <= 0) {
            return answer(new Result.Rejected(ErrorCode.INVALID_REQUEST, "forwarded command refused: "
                    + command.getClass().getSimpleName() + " with timeout " + timeoutMs + " ms"));
        }
        return submit.apply(command, (long) Math.min(timeoutMs, TIMEOUT_MS_MAX))
                .thenApply(ForwardedCommand::encodeResult);
    }

    private static CompletableFuture<Message> answer(Result result) {
        return CompletableFuture.completedFuture(encodeResult(result));
    }

    private static Message encodeResult(Result result) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(result)));
    }
}
