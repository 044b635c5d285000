package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.OffsetQueries;
import dev.cairn.broker.partition.PlacementCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.Message;
import org.junit.jupiter.api.Test;

class ForwardedCommandTest {
    private static final Command.TxnMarker MARKER = new Command.TxnMarker(42, (short) 3, true, 7, 1_000);
    private final List<Command> submitted = new ArrayList<>();
    private final List<Long> timeouts = new ArrayList<>();

    private CompletableFuture<Result> submit(Command command, long timeoutMs) {
        submitted.add(command);
        timeouts.add(timeoutMs);
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved"));
    }

    private static Result decode(CompletableFuture<Message> answer) {
        return CommandCodec.decodeResult(answer.join().getContent().asReadOnlyByteBuffer());
    }

    @Test
    void markerIsSubmittedOnTheLeaderWithItsTimeoutAndTheResultComesBack() {
        ByteBuffer query = ForwardedCommand.encode(MARKER, 30_000);
        assertTrue(ForwardedCommand.isForwarded(query));
        Result result = decode(ForwardedCommand.handle(query, this::submit));
        assertEquals(List.of(MARKER), submitted);
        assertEquals(List.of(30_000L), timeouts);
        assertEquals(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved"), result);
    }

    @Test
    void aTimeoutPastTheLimitIsCutToIt() {
        ForwardedCommand.handle(ForwardedCommand.encode(MARKER, Integer.MAX_VALUE), this::submit).join();
        assertEquals(List.of((long) ForwardedCommand.TIMEOUT_MS_MAX), timeouts);
    }

    @Test
    void onlyMarkersAndVerificationsAreForwarded() {
        assertTrue(ForwardedCommand.forwarded(MARKER));
        assertTrue(ForwardedCommand.forwarded(new Command.TxnVerify("t", 5, (short) 0,
                new dev.cairn.broker.partition.TxnPartition("orders", 0))));
        Command commit = new Command.CommitOffset("g", 5, 1, "", 0);
        assertFalse(ForwardedCommand.forwarded(commit));
        Result result = decode(ForwardedCommand.handle(ForwardedCommand.encode(commit, 1_000), this::submit));
        assertEquals(ErrorCode.INVALID_REQUEST, assertInstanceOf(Result.Rejected.class, result).error());
        assertTrue(submitted.isEmpty());
    }

    @Test
    void malformedCommandOrTimeoutIsRefusedNotSubmitted() {
        ByteBuffer garbage = ByteBuffer.allocate(9).put(CommandCodec.FORMAT_VERSION)
                .put(ForwardedCommand.QUERY_FORWARDED_COMMAND).putInt(1_000).put(new byte[] {99, 1, 2}).flip();
        assertEquals(ErrorCode.INVALID_REQUEST, assertInstanceOf(Result.Rejected.class,
                decode(ForwardedCommand.handle(garbage, this::submit))).error());
        ByteBuffer noTimeout = ForwardedCommand.encode(MARKER, 1_000);
        noTimeout.putInt(2, 0);
        assertEquals(ErrorCode.INVALID_REQUEST, assertInstanceOf(Result.Rejected.class,
                decode(ForwardedCommand.handle(noTimeout, this::submit))).error());
        assertTrue(submitted.isEmpty());
    }

    @Test
    void otherQueriesAreNotTakenForForwardedCommands() {
        assertFalse(ForwardedCommand.isForwarded(PlacementCodec.encodeBatchQuery(0, 1024)));
        assertFalse(ForwardedCommand.isForwarded(OffsetQueries.encodeCommittedOffsetQuery("group", true)));
    }
}
