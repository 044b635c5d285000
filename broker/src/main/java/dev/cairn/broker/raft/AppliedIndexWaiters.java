package dev.cairn.broker.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Futures that complete once this broker's replica of a Raft group has applied a given log index: a metadata change
 * answers its client only after the broker that took it sees the change itself (read-your-writes on one broker).
 * A wait ends after {@code maxWaitMs} even if the index is never reached (a replica far behind, or closing): the
 * change is committed either way, so the caller answers as it would have without waiting. Waiters are bounded by the
 * requests in flight, which the connection limits bound.
 */
final class AppliedIndexWaiters {
    private final long maxWaitMs;
    private final Object lock = new Object();
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiting = new TreeMap<>();
    private long applied = -1;

    /** @param maxWaitMs the longest a future waits before it completes anyway */
    AppliedIndexWaiters(long maxWaitMs) {
        this.maxWaitMs = maxWaitMs;
    }

    /** Completes once {@code index} is applied here, or after the bounded wait; at once when it already is. */
    CompletableFuture<Void> await(long index) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        synchronized (lock) {
            if (index <= applied) {
                return CompletableFuture.completedFuture(null);
            }
            waiting.computeIfAbsent(index, i -> new ArrayList<>(1)).add(future);
        }
        return future.completeOnTimeout(null, maxWaitMs, TimeUnit.MILLISECONDS).whenComplete((ok, error) -> {
            synchronized (lock) {
                List<CompletableFuture<Void>> atIndex = waiting.get(index);
                if (atIndex != null && atIndex.remove(future) && atIndex.isEmpty()) {
                    waiting.remove(index);
                }
            }
        });
    }

    /**
     * Called on the apply thread once every entry up to {@code index} is applied. The waiters' continuations (the
     * answers to clients) run on the common pool, never on the apply thread.
     */
    void applied(long index) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (lock) {
            if (index <= applied) {
                return;
            }
            applied = index;
            Map<Long, List<CompletableFuture<Void>>> reached = waiting.headMap(index, true);
            reached.values().forEach(done::addAll);
            reached.clear();
        }
        done.forEach(future -> future.completeAsync(() -> null));
    }

    /** Completes every waiter (the broker is closing). */
    void releaseAll() {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (lock) {
            waiting.values().forEach(done::addAll);
            waiting.clear();
        }
        done.forEach(future -> future.complete(null));
    }
}
