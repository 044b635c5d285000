package dev.cairn.broker.engine.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two brokers' {@link EngineRpc}s wired to each other through an in-memory {@link FrameSender}, each delivering on a
 * thread of its own as a Netty event loop would (engine-integration.md §6, commit 9: "a non-leader answers
 * NOT_LEADER; a timeout answers REQUEST_TIMED_OUT").
 */
@Timeout(60)
class EngineRpcTest {
    private static final int FRAME_BYTES_MAX = 1024 * 1024;
    private static final long WAIT_S = 10;

    private final Map<Integer, EngineRpc> brokers = new ConcurrentHashMap<>();
    private final Map<Integer, ExecutorService> loops = new ConcurrentHashMap<>();
    /** Whether frames to a broker are handed to a connection; false: the sender says so, and drops them. */
    private final Map<Integer, Boolean> connected = new ConcurrentHashMap<>();
    /** The correlation ids of the requests handed over, in order. */
    private final List<Long> requestsSent = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        brokers.values().forEach(EngineRpc::close);
        loops.values().forEach(ExecutorService::shutdownNow);
    }

    /** Broker {@code node}, answering requests with {@code leaderSide}. */
    private EngineRpc broker(int node, LeaderSide leaderSide) {
        return broker(node, leaderSide, EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX,
                EngineRpc.INBOUND_REQUESTS_PER_PEER_MAX);
    }

    private EngineRpc broker(int node, LeaderSide leaderSide, int outstandingMax, int inboundMax) {
        ExecutorService loop = Executors.newSingleThreadExecutor();
        loops.put(node, loop);
        connected.put(node, true);
        EngineRpc rpc = new EngineRpc(node, this::send, leaderSide, FRAME_BYTES_MAX, outstandingMax, inboundMax);
        brokers.put(node, rpc);
        return rpc;
    }

    /** Copies the frame, as the wire would, and delivers it on the receiver's loop. */
    private boolean send(int node, ByteBuffer frame) {
        EngineRpc to = brokers.get(node);
        if (to == null || !connected.getOrDefault(node, false)) {
            return false;
        }
        ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame.duplicate()).flip();
        if (copy.getInt(0) == EngineRpcCodec.REQUEST_MAGIC) {
            requestsSent.add(copy.getLong(8));
        }
        loops.get(node).execute(() -> to.onFrame(copy));
        return true;
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_S, TimeUnit.SECONDS);
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within " + WAIT_S + " s: " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static Result.Rejected rejected(Result result, ErrorCode error) {
        Result.Rejected rejected = assertInstanceOf(Result.Rejected.class, result);
        assertEquals(error, rejected.error(), rejected.message());
        return rejected;
    }

    @Test
    void everyCallReachesTheLeaderSideAndItsAnswerComesBack() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        byte[] batch = {9, 8, 7, 6};
        Result.Appended appended = new Result.Appended(100, 103, -1, 0, false);
        leader.answer = CompletableFuture.completedFuture(appended);

        assertEquals(appended, await(requester.submit(2, 7, new Command.Append(ByteBuffer.wrap(batch), 55L), 5_000)));
        assertEquals(List.of("submit 7 5000"), leader.calls);
        Command.Append received = assertInstanceOf(Command.Append.class, leader.commands.get(0));
        assertEquals(ByteBuffer.wrap(batch), received.batch());
        assertEquals(55L, received.appendTimeMs());

        Result.OffsetFetched fetched = new Result.OffsetFetched(17, "meta", 3);
        leader.answer = CompletableFuture.completedFuture(fetched);
        assertEquals(fetched, await(requester.committedOffset(2, 8, "group-ü", true, 5_000)));
        Result.GroupsListed listed = new Result.GroupsListed(List.of("a", "b"));
        leader.answer = CompletableFuture.completedFuture(listed);
        assertEquals(listed, await(requester.committedGroups(2, 9, 5_000)));
        leader.transferred = CompletableFuture.completedFuture(true);
        assertTrue(await(requester.transferLeadership(2, 10, 1, 4_000)));
        assertEquals(ByteBuffer.wrap(new byte[] {11, 1, 2}), await(requester.committedBatches(2, 11, 500, 4096,
                4_000)));
        assertEquals(List.of("submit 7 5000", "committedOffset 8 group-ü true", "committedGroups 9",
                "transfer 10 1 4000", "batches 11 500 4096"), leader.calls);
        assertEquals(0, requester.outstandingCalls());
    }

    @Test
    void aLeaderAnsweringNotLeaderPassesThrough() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        leader.answer = CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                "broker 2 does not lead it"));
        Result.Rejected answer = rejected(await(requester.submit(2, 1, new Command.DeleteRecords(5), 5_000)),
                ErrorCode.NOT_LEADER_OR_FOLLOWER);
        assertEquals("broker 2 does not lead it", answer.message());
    }

    @Test
    void aLeaderThatNeverAnswersTimesOutAndLeavesNothingPending() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        long startNs = System.nanoTime();
        CompletableFuture<Result> submitted = requester.submit(2, 1, new Command.DeleteRecords(5), 100);
        CompletableFuture<Result> read = requester.committedGroups(2, 1, 100);
        CompletableFuture<Boolean> transfer = requester.transferLeadership(2, 1, 1, 100);
        rejected(await(submitted), ErrorCode.REQUEST_TIMED_OUT);
        rejected(await(read), ErrorCode.REQUEST_TIMED_OUT);
        assertFalse(await(transfer));
        assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(100), "not before the timeout");
        assertEquals(0, requester.outstandingCalls());
        assertEquals(0, requester.outstandingCalls(2));
    }

    @Test
    void aCallThatCannotBeSentIsRefusedAtOnceAsSafeToRetry() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        connected.put(2, false);
        CompletableFuture<Result> submitted = requester.submit(2, 1, new Command.DeleteRecords(5), 60_000);
        assertTrue(submitted.isDone(), "refused at once, not after the timeout");
        Result.Rejected refused = rejected(submitted.join(), EngineRpc.NOT_SENT_ERROR);
        assertTrue(refused.message().contains("not sent"), refused.message());
        CompletableFuture<Boolean> transfer = requester.transferLeadership(2, 1, 1, 60_000);
        assertTrue(transfer.isDone());
        assertFalse(transfer.join());
        CompletableFuture<Result> unknown = requester.committedGroups(3, 1, 60_000);
        assertTrue(unknown.isDone(), "a broker the sender does not know");
        rejected(unknown.join(), ErrorCode.NOT_LEADER_OR_FOLLOWER);
        assertEquals(0, requester.outstandingCalls());
        assertTrue(leader.calls.isEmpty());
    }

    @Test
    void theCallPastTheOutstandingBoundIsRefusedAtOnce() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        List<CompletableFuture<Result>> waiting = new ArrayList<>();
        for (int i = 0; i < EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX; i++) {
            waiting.add(requester.committedGroups(2, 1, 60_000));
        }
        assertEquals(EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX, requester.outstandingCalls(2));
        CompletableFuture<Result> past = requester.committedGroups(2, 1, 60_000);
        assertTrue(past.isDone(), "refused at once");
        rejected(past.join(), EngineRpc.NOT_SENT_ERROR);
        assertTrue(waiting.stream().noneMatch(CompletableFuture::isDone));
        await("the leader holds every request sent", () -> leader.calls.size()
                == EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX);

        leader.pending.get(0).complete(Result.OFFSET_COMMITTED);
        assertEquals(Result.OFFSET_COMMITTED, await(waiting.get(0)));
        await("the answered call frees its place", () -> requester.outstandingCalls(2)
                == EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX - 1);
        CompletableFuture<Result> next = requester.committedGroups(2, 1, 60_000);
        assertFalse(next.isDone(), "a place is free again");
        assertEquals(EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX, requester.outstandingCalls(2));
    }

    @Test
    void closeFailsEveryPendingCallAndRefusesNewOnes() throws Exception {
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, new RecordingLeader());
        CompletableFuture<Result> submitted = requester.submit(2, 1, new Command.DeleteRecords(5), 60_000);
        CompletableFuture<Result> read = requester.committedOffset(2, 1, "g", false, 60_000);
        CompletableFuture<Boolean> transfer = requester.transferLeadership(2, 1, 1, 60_000);
        assertEquals(3, requester.outstandingCalls());
        requester.close();
        assertTrue(submitted.isDone() && read.isDone() && transfer.isDone(), "finished by close");
        rejected(submitted.join(), EngineRpc.UNANSWERED_ERROR);
        rejected(read.join(), EngineRpc.UNANSWERED_ERROR);
        assertFalse(transfer.join());
        assertEquals(0, requester.outstandingCalls());
        CompletableFuture<Result> after = requester.committedGroups(2, 1, 60_000);
        assertTrue(after.isDone());
        rejected(after.join(), EngineRpc.NOT_SENT_ERROR);
    }

    @Test
    void aFailingLeaderSideIsAnsweredNeverSilent() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        leader.answer = CompletableFuture.failedFuture(new IllegalStateException("boom"));
        rejected(await(requester.committedGroups(2, 1, 5_000)), ErrorCode.UNKNOWN_SERVER_ERROR);
        leader.answer = CompletableFuture.failedFuture(new TimeoutException("slow"));
        rejected(await(requester.committedGroups(2, 1, 5_000)), ErrorCode.REQUEST_TIMED_OUT);
        leader.answer = CompletableFuture.completedFuture(null);
        rejected(await(requester.committedGroups(2, 1, 5_000)), ErrorCode.UNKNOWN_SERVER_ERROR);
        leader.answer = null;
        rejected(await(requester.committedGroups(2, 1, 5_000)), ErrorCode.UNKNOWN_SERVER_ERROR);
        leader.throwing = true;
        rejected(await(requester.submit(2, 1, new Command.DeleteRecords(5), 5_000)), ErrorCode.UNKNOWN_SERVER_ERROR);
        assertFalse(await(requester.transferLeadership(2, 1, 1, 5_000)));
        leader.throwing = false;
        leader.transferred = CompletableFuture.failedFuture(new IllegalStateException("boom"));
        assertFalse(await(requester.transferLeadership(2, 1, 1, 5_000)));
    }

    @Test
    void requestsInProgressFromOneBrokerAreBounded() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader, EngineRpc.OUTSTANDING_CALLS_PER_PEER_MAX, 2);
        CompletableFuture<Result> first = requester.committedGroups(2, 1, 60_000);
        CompletableFuture<Result> second = requester.committedGroups(2, 1, 60_000);
        Result.Rejected third = rejected(await(requester.committedGroups(2, 1, 60_000)),
                ErrorCode.NOT_LEADER_OR_FOLLOWER);
        assertTrue(third.message().contains("not started"), third.message());
        assertEquals(2, leader.calls.size());
        leader.pending.get(0).complete(Result.OFFSET_COMMITTED);
        await(first);
        leader.answer = CompletableFuture.completedFuture(Result.RECONFIGURED);
        assertEquals(Result.RECONFIGURED, await(requester.committedGroups(2, 1, 60_000)), "a place is free again");
        assertFalse(second.isDone());
    }

    @Test
    void anAnswerFromAnotherBrokerOrOfAnotherKindLeavesTheCallWaiting() throws Exception {
        RecordingLeader leader = new RecordingLeader();
        EngineRpc requester = broker(1, new RecordingLeader());
        broker(2, leader);
        CompletableFuture<Result> read = requester.committedGroups(2, 1, 60_000);
        await("the leader holds the request", () -> leader.calls.size() == 1);
        long correlationId = requestsSent.get(0);
        requester.onFrame(EngineRpcCodec.encodeResponse(3, correlationId,
                new RpcResponse.Answered(Result.OFFSET_COMMITTED)));
        requester.onFrame(EngineRpcCodec.encodeResponse(2, correlationId, new RpcResponse.Transferred(true)));
        assertEquals(2, requester.framesDropped());
        assertFalse(read.isDone());
        requester.onFrame(EngineRpcCodec.encodeResponse(2, correlationId + 1_000,
                new RpcResponse.Answered(Result.OFFSET_COMMITTED)));
        assertFalse(read.isDone(), "an answer to no call is let go");
        leader.pending.get(0).complete(Result.RECONFIGURED);
        assertEquals(Result.RECONFIGURED, await(read));
    }

    /** A leader side that records its calls and answers with what the test sets, or never (a pending future). */
    private static final class RecordingLeader implements LeaderSide {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<Command> commands = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Result>> pending = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Result> answer = new CompletableFuture<>();
        volatile CompletableFuture<Boolean> transferred = new CompletableFuture<>();
        volatile boolean throwing;

        private CompletableFuture<Result> answer(String call) {
            calls.add(call);
            if (throwing) {
                throw new IllegalStateException("leader side failed");
            }
            CompletableFuture<Result> given = answer;
            if (given != null && !given.isDone()) {
                // Never answered unless the test completes it: one future per call.
                given = new CompletableFuture<>();
                pending.add(given);
            }
            return given;
        }

        @Override
        public CompletableFuture<Result> submit(int group, Command command, long timeoutMs) {
            commands.add(command);
            return answer("submit " + group + " " + timeoutMs);
        }

        @Override
        public CompletableFuture<Result> committedOffset(int group, String groupId, boolean requireStable) {
            return answer("committedOffset " + group + " " + groupId + " " + requireStable);
        }

        @Override
        public CompletableFuture<Result> committedGroups(int group) {
            return answer("committedGroups " + group);
        }

        @Override
        public CompletableFuture<ByteBuffer> committedBatches(int group, long fromOffset, int maxBytes) {
            calls.add("batches " + group + " " + fromOffset + " " + maxBytes);
            if (throwing) {
                throw new IllegalStateException("leader side failed");
            }
            return CompletableFuture.completedFuture(ByteBuffer.wrap(new byte[] {(byte) group, 1, 2}));
        }

        @Override
        public CompletableFuture<Boolean> transferLeadership(int group, int toNode, long timeoutMs) {
            calls.add("transfer " + group + " " + toNode + " " + timeoutMs);
            if (throwing) {
                throw new IllegalStateException("leader side failed");
            }
            return transferred;
        }
    }
}
