package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.logging.WarningLimiter;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader RPC of {@code raft.engine=cairn} (engine-integration.md §6, commit 9): lets a broker reach the leader of a
 * partition's Raft group on another broker, as Ratis's clients did on the Ratis path, to submit a command, read a
 * committed offset or the committed groups, or move the leadership. One per broker; it is both the client (the calls
 * below) and the server (requests handed to the broker's {@link LeaderSide}). Its frames ({@link EngineRpcCodec}) go
 * over the engine's own connections, through a {@link FrameSender}, and come in through {@link #onFrame} (the
 * transport's inbound side routes them here by {@link #isRpcFrame}).
 *
 * <p><b>Errors.</b> The futures never complete exceptionally. A call either carries the leader's answer (including
 * its NOT_LEADER_OR_FOLLOWER, passed through untouched) or ends unanswered, and then what the caller may do next
 * depends on whether the request left this broker:
 * <ul>
 *   <li>never sent (no connection to the peer, too much unsent to it, {@link #OUTSTANDING_CALLS_PER_PEER_MAX}
 *       calls already outstanding to it, or this closed): {@link #NOT_SENT_ERROR}, NOT_LEADER_OR_FOLLOWER, at once.
 *       The leader certainly did not act on it, so it is safe to retry; Kafka clients answer that code by refreshing
 *       metadata and retrying after their backoff, which is what helps when the leader's broker is gone or
 *       overloaded. Whoever retries it within the broker should back off too: the refusal comes without delay.
 *   <li>sent and unanswered (the timeout, or this closed while it waited): {@link #UNANSWERED_ERROR},
 *       REQUEST_TIMED_OUT. The leader may have applied it.
 *   <li>a request this broker cannot encode: INVALID_REQUEST; one too long for a frame: MESSAGE_TOO_LARGE.
 * </ul>
 * A leadership transfer answers false in all these cases.
 *
 * <p><b>Bounds.</b> At most {@link #OUTSTANDING_CALLS_PER_PEER_MAX} calls outstanding to one peer, the one past it
 * refused at once; a call leaves the pending map when answered, timed out or closed. Timeouts are cut to
 * {@link EngineRpcCodec#TIMEOUT_MS_MAX}, run on one timer thread of this instance, and the same timeout is the
 * leader's budget for a submit or transfer. As a server, at most {@link #INBOUND_REQUESTS_PER_PEER_MAX} requests from
 * one requester in progress. Malformed frames are dropped with a rate-limited warning, never thrown.
 *
 * <p><b>Threads.</b> A call's future completes on the thread that delivered its answer (a Netty event loop), on the
 * timer thread, on the caller's (an immediate refusal) or on the closing thread: whatever follows it must be quick.
 */
public final class EngineRpc implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineRpc.class);
    /** Calls outstanding to one peer at most; one more is refused at once (the KeptClient lesson). */
    public static final int OUTSTANDING_CALLS_PER_PEER_MAX = 1024;
    /**
     * Requests from one peer in progress here at most. Twice the requester's own bound, because a call it timed out
     * (and freed the slot of) may still be running on the leader.
     */
    public static final int INBOUND_REQUESTS_PER_PEER_MAX = 2 * OUTSTANDING_CALLS_PER_PEER_MAX;
    /** A call that never left this broker: safe to retry. */
    public static final ErrorCode NOT_SENT_ERROR = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    /** A call sent and not answered in time: the leader may have applied it. */
    public static final ErrorCode UNANSWERED_ERROR = ErrorCode.REQUEST_TIMED_OUT;

    private final int selfNode;
    private final FrameSender sender;
    private final int frameBytesMax;
    private final ScheduledThreadPoolExecutor timer;
    private final PendingCalls pending;
    private final LeaderRequests leaderRequests;
    private final WarningLimiter warnings;
    private final AtomicLong framesDropped = new AtomicLong();

    /**
     * @param selfNode this broker's node id, which requests carry so that the leader answers here
     * @param sender hands frames to the engine's connections
     * @param leaderSide answers the requests that reach this broker
     * @param frameBytesMax the longest frame the connections carry ({@code FrameCodec.FRAME_BYTES_MAX})
     */
    public EngineRpc(int selfNode, FrameSender sender, LeaderSide leaderSide, int frameBytesMax) {
        this(selfNode, sender, leaderSide, frameBytesMax, OUTSTANDING_CALLS_PER_PEER_MAX,
                INBOUND_REQUESTS_PER_PEER_MAX);
    }

    /** With other bounds, for tests. */
    EngineRpc(int selfNode, FrameSender sender, LeaderSide leaderSide, int frameBytesMax, int outstandingPerPeerMax,
            int inboundPerPeerMax) {
        if (selfNode < 0) {
            throw new IllegalArgumentException("node id " + selfNode + " is negative");
        }
        if (frameBytesMax < EngineRpcCodec.HEADER_BYTES) {
            throw new IllegalArgumentException("frames of at most " + frameBytesMax + " bytes cannot hold an RPC "
                    + "header of " + EngineRpcCodec.HEADER_BYTES);
        }
        this.selfNode = selfNode;
        this.sender = sender;
        this.frameBytesMax = frameBytesMax;
        this.timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "cairn-engine-rpc-timer");
            thread.setDaemon(true);
            return thread;
        });
        // A call answered in time cancels its timeout; cancelled timeouts leave the queue at once.
        timer.setRemoveOnCancelPolicy(true);
        this.pending = new PendingCalls(outstandingPerPeerMax, timer);
        this.warnings = new WarningLimiter(LOG, "RPC warnings", System::nanoTime);
        this.leaderRequests = new LeaderRequests(selfNode, leaderSide, sender, frameBytesMax, inboundPerPeerMax,
                warnings);
    }

    /** Whether an inbound frame is the RPC's rather than the engine's, by its first int; the position stays. */
    public static boolean isRpcFrame(ByteBuffer frame) {
        return EngineRpcCodec.isRpcFrame(frame);
    }

    /** Submits {@code command} to engine group {@code group} through its leader, broker {@code leaderNode}. */
    public CompletableFuture<Result> submit(int leaderNode, int group, Command command, long timeoutMs) {
        int timeout = clampTimeout(timeoutMs);
        return call(leaderNode, new RpcRequest.Submit(group, timeout, command), timeout);
    }

    /** Reads a consumer group's committed offset on engine group {@code group}'s leader, broker {@code leaderNode}. */
    public CompletableFuture<Result> committedOffset(int leaderNode, int group, String groupId, boolean requireStable,
            long timeoutMs) {
        return call(leaderNode, new RpcRequest.CommittedOffset(group, groupId, requireStable), clampTimeout(timeoutMs));
    }

    /** Lists the groups with a committed offset on engine group {@code group}'s leader, broker {@code leaderNode}. */
    public CompletableFuture<Result> committedGroups(int leaderNode, int group, long timeoutMs) {
        return call(leaderNode, new RpcRequest.CommittedGroups(group), clampTimeout(timeoutMs));
    }

    /**
     * Reads committed batches of engine group {@code group} from {@code fromOffset} on broker {@code node}: whole
     * batches (none when it has none there yet), or null when the call was refused or went unanswered.
     */
    public CompletableFuture<ByteBuffer> committedBatches(int node, int group, long fromOffset, int maxBytes,
            long timeoutMs) {
        RpcRequest request = new RpcRequest.CommittedBatches(group, fromOffset,
                Math.min(maxBytes, EngineRpcCodec.BATCHES_BYTES_MAX));
        return call(node, request, clampTimeout(timeoutMs), RpcResponse.class,
                response -> response instanceof RpcResponse.Batches batches ? batches.batches() : null,
                reason -> null, refusal -> null);
    }

    /**
     * Asks broker {@code leaderNode}, engine group {@code group}'s leader, to hand the leadership to {@code toNode}:
     * true once {@code toNode} leads, false when it did not within {@code timeoutMs} or the call went unanswered.
     */
    public CompletableFuture<Boolean> transferLeadership(int leaderNode, int group, int toNode, long timeoutMs) {
        int timeout = clampTimeout(timeoutMs);
        RpcRequest request = new RpcRequest.TransferLeadership(group, toNode, timeout);
        return call(leaderNode, request, timeout, RpcResponse.Transferred.class,
                response -> ((RpcResponse.Transferred) response).transferred(),
                reason -> false, error -> false);
    }

    private CompletableFuture<Result> call(int leaderNode, RpcRequest request, int timeoutMs) {
        return call(leaderNode, request, timeoutMs, RpcResponse.Answered.class,
                response -> ((RpcResponse.Answered) response).result(),
                reason -> unanswered(leaderNode, request, timeoutMs, reason),
                refusal -> refusal);
    }

    /**
     * Opens the call, sends its frame, and lets the pending calls finish it.
     *
     * @param onRefused what a request refused before it was opened (cannot be encoded, too long) answers
     */
    private <T> CompletableFuture<T> call(int leaderNode, RpcRequest request, int timeoutMs,
            Class<? extends RpcResponse> expected, Function<RpcResponse, T> onAnswer,
            Function<PendingCalls.Unanswered, T> onUnanswered, Function<Result.Rejected, T> onRefused) {
        long correlationId = pending.nextCorrelationId();
        ByteBuffer frame;
        try {
            frame = EngineRpcCodec.encodeRequest(selfNode, correlationId, request);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(onRefused.apply(new Result.Rejected(ErrorCode.INVALID_REQUEST,
                    "cannot send " + request.getClass().getSimpleName() + " to broker " + leaderNode + ": "
                            + e.getMessage())));
        }
        if (frame.remaining() > frameBytesMax) {
            return CompletableFuture.completedFuture(onRefused.apply(new Result.Rejected(ErrorCode.MESSAGE_TOO_LARGE,
                    request.getClass().getSimpleName() + " to broker " + leaderNode + " takes " + frame.remaining()
                            + " bytes; a frame at most " + frameBytesMax)));
        }
        PendingCalls.Call<T> call = pending.open(correlationId, leaderNode, timeoutMs, expected, onAnswer,
                onUnanswered);
        if (call.future().isDone()) {
            return call.future();
        }
        boolean sent;
        try {
            sent = sender.send(leaderNode, frame);
        } catch (RuntimeException e) {
            warnings.warn("sending to broker " + leaderNode + " failed: " + e);
            sent = false;
        }
        if (!sent) {
            pending.finish(call, PendingCalls.Unanswered.NOT_SENT);
        }
        return call.future();
    }

    private static int clampTimeout(long timeoutMs) {
        return (int) Math.max(1, Math.min(timeoutMs, EngineRpcCodec.TIMEOUT_MS_MAX));
    }

    private static Result unanswered(int leaderNode, RpcRequest request, int timeoutMs,
            PendingCalls.Unanswered reason) {
        String what = request.getClass().getSimpleName() + " for engine group " + request.group() + " to broker "
                + leaderNode;
        switch (reason) {
            case NOT_SENT:
                return new Result.Rejected(NOT_SENT_ERROR, what + " not sent: no connection to it (or too much "
                        + "unsent); safe to retry");
            case TOO_MANY_OUTSTANDING:
                return new Result.Rejected(NOT_SENT_ERROR, what + " not sent: as many calls to it as allowed are "
                        + "outstanding already; safe to retry");
            case CLOSED_BEFORE_SENDING:
                return new Result.Rejected(NOT_SENT_ERROR, what + " not sent: this broker's leader RPC is closed");
            case TIMED_OUT:
                return new Result.Rejected(UNANSWERED_ERROR, what + " not answered within " + timeoutMs
                        + " ms; it may have been applied");
            case CLOSED_WHILE_PENDING:
                return new Result.Rejected(UNANSWERED_ERROR, what + " not answered before this broker's leader RPC "
                        + "closed; it may have been applied");
            default:
                throw new IllegalArgumentException("unanswered for an unknown reason " + reason);
        }
    }

    /**
     * Takes one inbound RPC frame (the transport's thread): a request goes to the leader side, a response finishes
     * its call. A malformed frame, or a response no call waits for from its sender, is dropped; nothing is thrown.
     * The frame must not be reused after: a submitted Append's batch is a slice of it, handed to the leader side.
     */
    public void onFrame(ByteBuffer frame) {
        RpcFrame decoded;
        try {
            decoded = EngineRpcCodec.decode(frame);
        } catch (RpcFormatException e) {
            framesDropped.incrementAndGet();
            warnings.warn("dropped a malformed leader RPC frame of " + frame.remaining() + " bytes: "
                    + e.getMessage());
            return;
        }
        if (decoded instanceof RpcFrame.Request request) {
            leaderRequests.onRequest(request);
            return;
        }
        RpcFrame.Response response = (RpcFrame.Response) decoded;
        PendingCalls.Match match = pending.onResponse(response.sender(), response.correlationId(),
                response.response());
        if (match == PendingCalls.Match.LATE) {
            LOG.debug("an answer from broker {} to call {} came after the call ended", response.sender(),
                    response.correlationId());
        } else if (match == PendingCalls.Match.MISMATCHED) {
            framesDropped.incrementAndGet();
            warnings.warn("dropped an answer from broker " + response.sender() + " to call "
                    + response.correlationId() + ", which was made to another broker or for another kind of answer");
        }
    }

    /** Calls outstanding to all peers. */
    public int outstandingCalls() {
        return pending.outstanding();
    }

    /** Calls outstanding to broker {@code node}. */
    public int outstandingCalls(int node) {
        return pending.outstanding(node);
    }

    /** Inbound frames dropped so far: malformed, or answers that matched no call of their sender. */
    public long framesDropped() {
        return framesDropped.get();
    }

    /**
     * Finishes every outstanding call (REQUEST_TIMED_OUT, or false for a transfer: they were sent) and refuses new
     * ones. Answers the leader side gives after this are still sent.
     */
    @Override
    public void close() {
        pending.close();
        timer.shutdownNow();
    }
}
