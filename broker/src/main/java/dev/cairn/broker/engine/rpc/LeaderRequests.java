package dev.cairn.broker.engine.rpc;

import dev.cairn.broker.logging.WarningLimiter;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link EngineRpc}'s server side: hands each request that reaches this broker to its {@link LeaderSide} and sends the
 * answer back to the requesting node when the leader's future completes, from whatever thread completes it. Every
 * request gets exactly one answer: a handler that throws, returns null or completes exceptionally is answered for
 * (UNKNOWN_SERVER_ERROR, or REQUEST_TIMED_OUT for a timeout; false for a transfer), never left silent. Only an
 * answer that cannot be handed to a connection back is lost, and then the requester's own timeout answers it.
 *
 * <p>Requests in progress from one requester are bounded ({@code perPeerMax}): one past it is refused at once with
 * NOT_LEADER_OR_FOLLOWER without reaching the leader, like a request the requester could not send.
 */
final class LeaderRequests {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderRequests.class);

    private final int selfNode;
    private final LeaderSide leaderSide;
    private final FrameSender sender;
    private final int frameBytesMax;
    private final int perPeerMax;
    private final WarningLimiter warnings;
    /** Requests in progress by requester; a requester with none has no entry, so this holds no one idle. */
    private final ConcurrentHashMap<Integer, Integer> inProgressByPeer = new ConcurrentHashMap<>();

    LeaderRequests(int selfNode, LeaderSide leaderSide, FrameSender sender, int frameBytesMax, int perPeerMax,
            WarningLimiter warnings) {
        this.selfNode = selfNode;
        this.leaderSide = leaderSide;
        this.sender = sender;
        this.frameBytesMax = frameBytesMax;
        this.perPeerMax = perPeerMax;
        this.warnings = warnings;
    }

    /** Dispatches one request to the leader side; never throws, never blocks (the leader side's calls return). */
    void onRequest(RpcFrame.Request frame) {
        if (!maybeAdmit(frame.sender())) {
            RpcResponse refused = frame.request() instanceof RpcRequest.TransferLeadership
                    ? new RpcResponse.Transferred(false)
                    : new RpcResponse.Answered(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "broker "
                            + selfNode + " already has " + perPeerMax + " requests from broker " + frame.sender()
                            + " in progress; this one was not started"));
            send(frame, refused);
            return;
        }
        CompletableFuture<RpcResponse> answer;
        try {
            answer = dispatch(frame.request());
        } catch (RuntimeException e) {
            warnings.warn("the leader side failed on " + frame.request() + " from broker " + frame.sender() + ": "
                    + e);
            answer = CompletableFuture.completedFuture(failed(frame.request(), e));
        }
        answer.whenComplete((response, error) -> {
            release(frame.sender());
            send(frame, response != null ? response : failed(frame.request(), error));
        });
    }

    /** Counts one more request in progress from {@code requester}, unless it has {@code perPeerMax} already. */
    private boolean maybeAdmit(int requester) {
        boolean[] admitted = new boolean[1];
        inProgressByPeer.compute(requester, (node, inProgress) -> {
            int current = inProgress == null ? 0 : inProgress;
            if (current >= perPeerMax) {
                return inProgress;
            }
            admitted[0] = true;
            return current + 1;
        });
        return admitted[0];
    }

    private void release(int requester) {
        inProgressByPeer.computeIfPresent(requester, (node, inProgress) -> inProgress == 1 ? null : inProgress - 1);
    }

    private CompletableFuture<RpcResponse> dispatch(RpcRequest request) {
        if (request instanceof RpcRequest.TransferLeadership transfer) {
            CompletableFuture<Boolean> moved = leaderSide.transferLeadership(transfer.group(), transfer.toNode(),
                    transfer.timeoutMs());
            return nonNull(moved, request).thenApply(done -> new RpcResponse.Transferred(Boolean.TRUE.equals(done)));
        }
        if (request instanceof RpcRequest.CommittedBatches read) {
            CompletableFuture<ByteBuffer> batches = leaderSide.committedBatches(read.group(), read.fromOffset(),
                    read.maxBytes());
            return nonNull(batches, request).thenApply(bytes -> bytes == null ? null
                    : new RpcResponse.Batches(bytes));
        }
        CompletableFuture<Result> result;
        if (request instanceof RpcRequest.Submit submit) {
            result = leaderSide.submit(submit.group(), submit.command(), submit.timeoutMs());
        } else if (request instanceof RpcRequest.CommittedOffset read) {
            result = leaderSide.committedOffset(read.group(), read.groupId(), read.requireStable());
        } else {
            result = leaderSide.committedGroups(request.group());
        }
        return nonNull(result, request).thenApply(answered -> answered == null ? null
                : new RpcResponse.Answered(answered));
    }

    private static <T> CompletableFuture<T> nonNull(CompletableFuture<T> future, RpcRequest request) {
        if (future == null) {
            throw new IllegalStateException("the leader side returned no future for " + request);
        }
        return future;
    }

    /** The answer to a request whose handler failed: {@code error} null when it completed with null. */
    private static RpcResponse failed(RpcRequest request, Throwable error) {
        if (request instanceof RpcRequest.TransferLeadership) {
            return new RpcResponse.Transferred(false);
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TimeoutException) {
            return new RpcResponse.Answered(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, "the leader did not "
                    + "answer in time: " + cause.getMessage()));
        }
        return new RpcResponse.Answered(new Result.Rejected(ErrorCode.UNKNOWN_SERVER_ERROR, cause == null
                ? "the leader answered nothing" : "the leader failed: " + cause));
    }

    /** Sends the answer to the requester; one that cannot be encoded or is too long is answered with an error. */
    private void send(RpcFrame.Request request, RpcResponse response) {
        ByteBuffer frame;
        try {
            frame = EngineRpcCodec.encodeResponse(selfNode, request.correlationId(), response);
        } catch (IllegalArgumentException e) {
            warnings.warn("cannot encode the answer to " + request.request() + ": " + e.getMessage());
            frame = encodeError(request, "the answer cannot be encoded: " + e.getMessage());
        }
        if (frame.remaining() > frameBytesMax) {
            frame = encodeError(request, "the answer takes " + frame.remaining() + " bytes; a frame at most "
                    + frameBytesMax);
        }
        try {
            if (!sender.send(request.sender(), frame)) {
                LOG.debug("the answer to call {} of broker {} was not sent (no connection); it will time out",
                        request.correlationId(), request.sender());
            }
        } catch (RuntimeException e) {
            warnings.warn("sending the answer to broker " + request.sender() + " failed: " + e);
        }
    }

    private ByteBuffer encodeError(RpcFrame.Request request, String message) {
        RpcResponse error = request.request() instanceof RpcRequest.TransferLeadership
                ? new RpcResponse.Transferred(false)
                : new RpcResponse.Answered(new Result.Rejected(ErrorCode.UNKNOWN_SERVER_ERROR, message));
        return EngineRpcCodec.encodeResponse(selfNode, request.correlationId(), error);
    }
}
