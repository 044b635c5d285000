package dev.cairn.broker.engine.rpc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The calls this broker has opened to leaders on other brokers and not yet seen finish ({@link EngineRpc}'s client
 * side): at most {@code perPeerMax} per peer, each finished exactly once, by whichever comes first of its answer, its
 * timeout, a failed send and {@link #close}. Whoever removes a call from the map finishes it, so a late answer and a
 * timeout can never both complete the same call, and a finished call never stays in the map. Thread-safe: calls are
 * opened on callers' threads, answered on Netty threads, timed out on the timer's thread.
 */
final class PendingCalls {

    /** Why a call ended without an answer; {@link #sent} says whether the leader may have acted on it. */
    enum Unanswered {
        /** The frame was not handed to a connection to the peer (none yet, or too much unsent). */
        NOT_SENT(false),
        /** The peer already had {@code perPeerMax} calls outstanding; nothing was sent. */
        TOO_MANY_OUTSTANDING(false),
        /** This broker's RPC was closed before the call was sent. */
        CLOSED_BEFORE_SENDING(false),
        /** Sent, and no answer came within the timeout. */
        TIMED_OUT(true),
        /** Sent, and this broker's RPC closed before an answer came. */
        CLOSED_WHILE_PENDING(true);

        private final boolean sent;

        Unanswered(boolean sent) {
            this.sent = sent;
        }

        /** Whether the request left this broker, so that the leader may have applied it. */
        boolean sent() {
            return sent;
        }
    }

    /** What {@link #onResponse} did with a response. */
    enum Match {
        /** It finished its call. */
        ANSWERED,
        /** No call is waiting under its correlation id (it timed out or was closed): dropped. */
        LATE,
        /** Its call went to another peer, or waits for another kind of response: dropped, the call still waits. */
        MISMATCHED
    }

    /** One call, completed exactly once (by whoever removes it from the map). */
    static final class Call<T> {
        final long correlationId;
        final int peer;
        private final Class<? extends RpcResponse> expected;
        private final Function<RpcResponse, T> onAnswer;
        private final Function<Unanswered, T> onUnanswered;
        private final CompletableFuture<T> future = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timeout;

        Call(long correlationId, int peer, Class<? extends RpcResponse> expected, Function<RpcResponse, T> onAnswer,
                Function<Unanswered, T> onUnanswered) {
            this.correlationId = correlationId;
            this.peer = peer;
            this.expected = expected;
            this.onAnswer = onAnswer;
            this.onUnanswered = onUnanswered;
        }

        /** Completes only normally: with the answer mapped by onAnswer, or the reason mapped by onUnanswered. */
        CompletableFuture<T> future() {
            return future;
        }
    }

    private final int perPeerMax;
    private final ScheduledExecutorService timer;
    private final ConcurrentHashMap<Long, Call<?>> calls = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, AtomicInteger> outstandingByPeer = new ConcurrentHashMap<>();
    private final AtomicLong lastCorrelationId = new AtomicLong();
    private volatile boolean closed;

    /**
     * @param perPeerMax calls outstanding to one peer at most; one more is refused at once
     * @param timer runs the calls' timeouts (one thread is plenty: a timeout only completes a future)
     */
    PendingCalls(int perPeerMax, ScheduledExecutorService timer) {
        if (perPeerMax < 1) {
            throw new IllegalArgumentException("at most " + perPeerMax + " calls per peer");
        }
        this.perPeerMax = perPeerMax;
        this.timer = timer;
    }

    /** A correlation id no call of this broker has had since it started. */
    long nextCorrelationId() {
        return lastCorrelationId.incrementAndGet();
    }

    /**
     * Opens a call to {@code peer} and starts its timeout. When the peer already has {@code perPeerMax} calls
     * outstanding, or this is closed, the call comes back already finished (TOO_MANY_OUTSTANDING,
     * CLOSED_BEFORE_SENDING) and must not be sent.
     *
     * @param expected the kind of response that answers it; any other is dropped
     */
    <T> Call<T> open(long correlationId, int peer, long timeoutMs, Class<? extends RpcResponse> expected,
            Function<RpcResponse, T> onAnswer, Function<Unanswered, T> onUnanswered) {
        Call<T> call = new Call<>(correlationId, peer, expected, onAnswer, onUnanswered);
        if (closed) {
            call.future.complete(onUnanswered.apply(Unanswered.CLOSED_BEFORE_SENDING));
            return call;
        }
        AtomicInteger outstanding = outstandingByPeer.computeIfAbsent(peer, unused -> new AtomicInteger());
        if (outstanding.incrementAndGet() > perPeerMax) {
            outstanding.decrementAndGet();
            call.future.complete(onUnanswered.apply(Unanswered.TOO_MANY_OUTSTANDING));
            return call;
        }
        if (calls.putIfAbsent(correlationId, call) != null) {
            outstanding.decrementAndGet();
            throw new IllegalStateException("correlation id " + correlationId + " is already in use");
        }
        // close() may have swept the map before the put: finish the call here rather than leave it behind.
        if (closed) {
            finish(call, Unanswered.CLOSED_BEFORE_SENDING);
            return call;
        }
        try {
            call.timeout = timer.schedule(() -> finish(call, Unanswered.TIMED_OUT), timeoutMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The timer stopped: this is closing.
            finish(call, Unanswered.CLOSED_BEFORE_SENDING);
            return call;
        }
        if (call.future.isDone()) {
            // Finished while its timeout was being scheduled; the timeout has nothing left to do.
            call.timeout.cancel(false);
        }
        return call;
    }

    /**
     * Finishes {@code call} with {@code reason} if it is still outstanding (a failed send, a timeout, a close); does
     * nothing when it has finished already.
     */
    void finish(Call<?> call, Unanswered reason) {
        if (remove(call)) {
            complete(call, reason);
        }
    }

    /** Finishes the call that {@code response} answers, if one is waiting for it from {@code sender}. */
    Match onResponse(int sender, long correlationId, RpcResponse response) {
        Call<?> call = calls.get(correlationId);
        if (call == null) {
            return Match.LATE;
        }
        if (call.peer != sender || !call.expected.isInstance(response)) {
            return Match.MISMATCHED;
        }
        if (!remove(call)) {
            return Match.LATE;
        }
        answer(call, response);
        return Match.ANSWERED;
    }

    /** Calls outstanding, to all peers. */
    int outstanding() {
        return calls.size();
    }

    /** Calls outstanding to {@code peer}. */
    int outstanding(int peer) {
        AtomicInteger outstanding = outstandingByPeer.get(peer);
        return outstanding == null ? 0 : outstanding.get();
    }

    /** Finishes every outstanding call (CLOSED_WHILE_PENDING) and refuses new ones. */
    void close() {
        closed = true;
        for (Call<?> call : calls.values()) {
            finish(call, Unanswered.CLOSED_WHILE_PENDING);
        }
    }

    private boolean remove(Call<?> call) {
        if (!calls.remove(call.correlationId, call)) {
            return false;
        }
        outstandingByPeer.get(call.peer).decrementAndGet();
        ScheduledFuture<?> timeout = call.timeout;
        if (timeout != null) {
            timeout.cancel(false);
        }
        return true;
    }

    private static <T> void answer(Call<T> call, RpcResponse response) {
        call.future.complete(call.onAnswer.apply(response));
    }

    private static <T> void complete(Call<T> call, Unanswered reason) {
        call.future.complete(call.onUnanswered.apply(reason));
    }
}
