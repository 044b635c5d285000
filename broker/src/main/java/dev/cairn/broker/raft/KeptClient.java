package dev.cairn.broker.raft;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.util.TimeDuration;

/**
 * A Raft client {@link LeaderClients} keeps for one partition group: the replicas it was built for, how many calls
 * use it, and how many of its requests Ratis still holds.
 *
 * <p>Ratis's ordered async API takes a permit per request from a semaphore of
 * {@code raft.client.async.outstanding-requests.max} and <em>blocks the calling thread</em> while none is free; the
 * permit comes back only when Ratis ends the request, after its own retries (up to a minute), not when the caller
 * stops waiting. Callers here are Netty event loops: at three brokers, KIP-890 verifications to one coordinator
 * partition used up the permits while its leader did not answer, and both event loops of a broker blocked for good
 * (every connection to it stalled). So a request is started only while fewer than {@code outstandingMax} are held,
 * which is below Ratis's own bound; otherwise {@link #start} refuses it at once.
 *
 * <p>A client whose requests all go unanswered (Ratis's ordered window waits on a reply that never comes) has
 * {@linkplain #stalledFor stalled}; {@link LeaderClients} then replaces it, and closing it ends what it held.
 */
final class KeptClient {
    /**
     * How long Ratis's client waits for one attempt's reply. Ratis's default (3 s) is shorter than a request may take
     * under load, and each attempt that times out makes Ratis reset the connection to that peer, failing every other
     * request on it and closing the old channel on a shared timer thread (a graceful close that waits seconds): under
     * three-broker load the resets fed each other and a client answered nothing for tens of seconds. Callers bound
     * their own waits (seconds); a leader that is gone refuses at once or is replaced by Ratis's election first.
     */
    static final long ATTEMPT_TIMEOUT_MS = 10_000;

    private final RaftClient client;
    private final List<Integer> replicas;
    private final int outstandingMax;
    private final AtomicInteger outstanding = new AtomicInteger();
    /** Calls using the client now (a client in use is not closed as idle). */
    final AtomicInteger inUse = new AtomicInteger();
    volatile long lastUsedNanos;
    /** When Ratis last ended a request of this client (answered or failed), or when the client was built. */
    private volatile long lastEndedNanos = System.nanoTime();

    KeptClient(RaftClient client, List<Integer> replicas, int outstandingMax) {
        if (outstandingMax < 1) {
            throw new IllegalArgumentException("outstandingMax must be at least 1: " + outstandingMax);
        }
        this.client = client;
        this.replicas = replicas;
        this.outstandingMax = outstandingMax;
    }

    /** Ratis client properties for clients kept this way: {@code base} with the bounds above. */
    static RaftProperties clientProperties(RaftProperties base, int outstandingMax) {
        RaftProperties properties = new RaftProperties(base);
        // One above ours: Ratis's ordered client may also send one watch request of its own when it starts.
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(properties, outstandingMax + 1);
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties,
                TimeDuration.valueOf(ATTEMPT_TIMEOUT_MS, TimeUnit.MILLISECONDS));
        return properties;
    }

    RaftClient client() {
        return client;
    }

    List<Integer> replicas() {
        return replicas;
    }

    /** Requests Ratis holds for this client now. */
    int outstanding() {
        return outstanding.get();
    }

    /**
     * Sends a request through the client, or returns null without sending when {@code outstandingMax} requests are
     * already outstanding: the send then cannot wait for a Ratis permit.
     */
    CompletableFuture<RaftClientReply> start(Function<RaftClient, CompletableFuture<RaftClientReply>> request) {
        if (outstanding.incrementAndGet() > outstandingMax) {
            outstanding.decrementAndGet();
            return null;
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = request.apply(client);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        // Ratis gives its permit back before this stage runs, so the count here never undercounts its permits.
        return sent.whenComplete((reply, error) -> {
            lastEndedNanos = System.nanoTime();
            outstanding.decrementAndGet();
        });
    }

    /** Whether requests are outstanding and Ratis has ended none of this client's requests for {@code nanos}. */
    boolean stalledFor(long nanos) {
        return outstanding.get() > 0 && System.nanoTime() - lastEndedNanos >= nanos;
    }
}
