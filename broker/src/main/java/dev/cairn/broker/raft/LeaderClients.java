package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raft clients for partition groups this broker reaches without leading them (offset commits and reads through the
 * partition's leader), one per group, built from the group's replicas in metadata and kept until close, or until
 * the client gives up: once a request has used up its retries (the leader's broker died and no new leader answered
 * in time), Ratis closes that client for good, so it is dropped and the next request builds a fresh one. Kept, it
 * failed every later commit and offset read for the partition, and a consumer group stalled until its restart.
 */
final class LeaderClients implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderClients.class);
    /** Retries of a partition-group client (leader moves, elections), and the pause between them. */
    private static final int CLIENT_RETRIES_MAX = 20;
    private static final long CLIENT_RETRY_SLEEP_MS = 100;
    /** Clients kept while idle; past it the least recently used idle ones are closed. */
    static final int IDLE_CLIENTS_MAX = 256;
    /**
     * Requests one kept client may have outstanding; past it a request is refused at once (see {@link KeptClient}).
     * Ratis's own bound is set one above, so that a send never waits for a Ratis permit. Every KIP-890 verification
     * for one coordinator partition from this broker goes through one client: at 64, three-broker franz-go runs had
     * verifications refused at once for long stretches (batches answered NOT_ENOUGH_REPLICAS within a second, over
     * and over, until their transactions timed out). Requests are small commands, so this bounds little memory.
     */
    static final int OUTSTANDING_REQUESTS_MAX = 1_024;
    /**
     * A client that has ended none of its outstanding requests for this long, when a call's wait runs out, is
     * replaced: longer than a leader election, and as long as one Ratis attempt
     * ({@link KeptClient#ATTEMPT_TIMEOUT_MS}), so a failover alone does not.
     */
    static final long STALLED_AFTER_MS = 10_000;
    /**
     * How long {@link #close} waits for the kept clients, closed all at once: one with requests its leader holds takes
     * gRPC's graceful then forced channel close (3 + 2 s); one after the other they took minutes (issue 16 item 10).
     */
    static final long CLOSE_WAIT_MS = 6_000;

    /** The bounds above, as one value (tests lower them). */
    record Bounds(int idleClientsMax, int outstandingMax, long stalledAfterMs) {
        static final Bounds DEFAULTS = new Bounds(IDLE_CLIENTS_MAX, OUTSTANDING_REQUESTS_MAX, STALLED_AFTER_MS);
    }

    private final Supplier<MetadataImage> images;
    private final Function<List<Integer>, List<RaftPeer>> peers;
    private final RaftProperties properties;
    /** Ratis's TLS configuration (raft.ssl.*), empty for plaintext; Ratis only reads it. */
    private final Parameters parameters;
    private final Map<UUID, KeptClient> clients = new ConcurrentHashMap<>();
    /** Set by {@link #close}: no client is built any more, and requests fail at once. */
    private volatile boolean closed;
    private final int idleClientsMax;
    private final int outstandingMax;
    private final long stalledAfterNanos;
    /**
     * Runs leadership transfers (ElectLeaders), whose Ratis client call blocks: one at a time, off every other
     * thread; queued ones wait their turn, at most {@link Limits#LEADER_TRANSFERS_QUEUED_MAX} of them (each bounded
     * by its timeout); past that a transfer is refused at once and reported as not done.
     */
    private final java.util.concurrent.ExecutorService transfers = new java.util.concurrent.ThreadPoolExecutor(1, 1,
            0, TimeUnit.MILLISECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(Limits.LEADER_TRANSFERS_QUEUED_MAX), runnable -> {
                Thread thread = new Thread(runnable, "cairn-leader-transfer");
                thread.setDaemon(true);
                return thread;
            });

    LeaderClients(Supplier<MetadataImage> images, Function<List<Integer>, List<RaftPeer>> peers,
            RaftProperties properties, Parameters parameters) {
        this(images, peers, properties, parameters, Bounds.DEFAULTS);
    }

    LeaderClients(Supplier<MetadataImage> images, Function<List<Integer>, List<RaftPeer>> peers,
            RaftProperties properties, Parameters parameters, Bounds bounds) {
        this.images = images;
        this.peers = peers;
        this.properties = KeptClient.clientProperties(properties, bounds.outstandingMax());
        this.parameters = parameters;
        this.idleClientsMax = bounds.idleClientsMax();
        this.outstandingMax = bounds.outstandingMax();
        this.stalledAfterNanos = TimeUnit.MILLISECONDS.toNanos(bounds.stalledAfterMs());
    }

    /** Replicates {@code command} through the group's leader, wherever it is. */
    CompletableFuture<Result> send(TopicPartition tp, ByteBuffer command, long timeoutMs) {
        return call(tp, client -> client.async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(command))),
                timeoutMs);
    }

    /**
     * Asks the group's leader a read-only query, unordered: a query needs no order among this broker's requests (each
     * is answered from the leader's applied state, a forwarded command through its lane), and Ratis's ordered window
     * holds every later request behind one that goes unanswered.
     */
    CompletableFuture<Result> query(TopicPartition tp, ByteBuffer query, long timeoutMs) {
        return call(tp, client -> client.async().sendReadOnlyUnordered(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(query))), timeoutMs);
    }

    /** A read-only query whose answer is taken as it comes (not a Result); fails when the leader cannot answer. */
    CompletableFuture<ByteBuffer> queryBytes(TopicPartition tp, ByteBuffer query, long timeoutMs) {
        Optional<Group> group = group(tp);
        if (group.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalStateException(tp + " is not in the metadata"));
        }
        return exchange(tp, group.get(), client -> client.async().sendReadOnlyUnordered(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(query))), timeoutMs).thenApply(reply -> {
                    if (!reply.isSuccess()) {
                        throw new IllegalStateException(tp + ": the leader did not answer: " + reply.getException());
                    }
                    return reply.getMessage().getContent().asReadOnlyByteBuffer();
                });
    }

    private CompletableFuture<Result> call(TopicPartition tp,
            Function<RaftClient, CompletableFuture<RaftClientReply>> request, long timeoutMs) {
        Optional<Group> group = group(tp);
        if (group.isEmpty()) {
            return unknown(tp);
        }
        return exchange(tp, group.get(), request, timeoutMs).handle((reply, error) -> result(tp, reply, error));
    }

    /**
     * Sends a request through the group's kept client, never waiting on the calling thread: refused at once while
     * the client holds {@link #OUTSTANDING_REQUESTS_MAX} requests. A client that has ended none of its requests for
     * {@link #STALLED_AFTER_MS} when a call's wait runs out is replaced (closing it ends what it holds); one Ratis
     * closed is dropped.
     */
    private CompletableFuture<RaftClientReply> exchange(TopicPartition tp, Group group,
            Function<RaftClient, CompletableFuture<RaftClientReply>> request, long timeoutMs) {
        KeptClient kept = acquire(group);
        if (kept == null) {
            return CompletableFuture.failedFuture(new AlreadyClosedException(tp + ": the broker is closing"));
        }
        CompletableFuture<RaftClientReply> sent = kept.start(request);
        if (sent == null) {
            release(kept);
            return CompletableFuture.failedFuture(new IllegalStateException(tp + ": " + kept.outstanding()
                    + " requests to the leader are outstanding already (at most " + outstandingMax + ")"));
        }
        return sent.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((reply, error) -> {
            release(kept);
            if (closedForGood(error)) {
                discard(group.gid(), kept);
            } else if (error instanceof TimeoutException && kept.stalledFor(stalledAfterNanos)
                    && discard(group.gid(), kept)) {
                LOG.warn("{}: the Raft client to its leader had ended none of its {} outstanding requests for {} ms;"
                        + " replaced it", tp, kept.outstanding(), TimeUnit.NANOSECONDS.toMillis(stalledAfterNanos));
            }
        });
    }

    /**
     * Asks the group's leader, wherever it is, to hand leadership to {@code toNode} (Ratis's transfer: the leader
     * waits for that replica to catch up, then has it start an election). Completes with whether it happened within
     * {@code timeoutMs}.
     */
    CompletableFuture<Boolean> transferLeadership(TopicPartition tp, int toNode, long timeoutMs) {
        Optional<Group> group = group(tp);
        if (group.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        KeptClient built = acquire(group.get());
        if (built == null) {
            return CompletableFuture.completedFuture(false);
        }
        RaftClient client = built.client();
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return client.admin().transferLeadership(RaftPeerId.valueOf(Integer.toString(toNode)), timeoutMs)
                            .isSuccess();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("{}: leadership transfer to {} failed: {}", tp, toNode, e.toString());
                    return false;
                }
            }, transfers).whenComplete((done, error) -> release(built));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            release(built);
            return CompletableFuture.completedFuture(false);
        }
    }

    /** Whether a client's failure means Ratis has closed it: it answers nothing any more. */
    static boolean closedForGood(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RaftRetryFailureException || cause instanceof AlreadyClosedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The group's client, counted as in use until {@link #release}; built afresh when metadata lists other replicas
     * than the one kept was built for (a reassignment moved them): a client knows only the peers it was built with.
     * Null once {@link #close} began.
     */
    private KeptClient acquire(Group group) {
        if (closed) {
            return null;
        }
        KeptClient acquired = clients.compute(group.gid(), (gid, kept) -> {
            KeptClient current = kept;
            if (current == null || !current.replicas().equals(group.replicas())) {
                if (current != null) {
                    closeLater(gid, current.client());
                }
                current = new KeptClient(newClient(gid, group.replicas()), group.replicas(), outstandingMax);
            }
            current.inUse.incrementAndGet();
            current.lastUsedNanos = System.nanoTime();
            return current;
        });
        if (closed) {
            // Built while close ran: close set the flag before it took the clients, so either it took this one or
            // this check sees the flag; whichever removes it closes it.
            if (clients.remove(group.gid(), acquired)) {
                closeLater(group.gid(), acquired.client());
            }
            return null;
        }
        return acquired;
    }

    /**
     * Ends a use of a client; past {@link #IDLE_CLIENTS_MAX} clients, closes the least recently used idle ones (a
     * ListGroups or DeleteGroups reads every partition's leader, which would otherwise leave a client, with its
     * connections, per partition this broker does not lead).
     */
    private void release(KeptClient built) {
        built.inUse.decrementAndGet();
        while (clients.size() > idleClientsMax) {
            Map.Entry<UUID, KeptClient> oldest = null;
            for (Map.Entry<UUID, KeptClient> entry : clients.entrySet()) {
                if (entry.getValue().inUse.get() == 0 && (oldest == null
                        || entry.getValue().lastUsedNanos < oldest.getValue().lastUsedNanos)) {
                    oldest = entry;
                }
            }
            if (oldest == null) {
                return;
            }
            KeptClient evicted = oldest.getValue();
            boolean[] removed = new boolean[1];
            clients.computeIfPresent(oldest.getKey(), (gid, kept) -> {
                removed[0] = kept == evicted && kept.inUse.get() == 0;
                return removed[0] ? null : kept;
            });
            if (removed[0]) {
                closeLater(oldest.getKey(), evicted.client());
            }
        }
    }

    /** Closes the clients of groups {@code image} no longer holds (deleted topics). */
    void retainGroupsOf(MetadataImage image) {
        if (clients.isEmpty()) {
            return;
        }
        java.util.Set<UUID> live = new java.util.HashSet<>();
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                live.add(PartitionGroups.groupId(topic.topicId(), p));
            }
        }
        for (Map.Entry<UUID, KeptClient> entry : clients.entrySet()) {
            if (!live.contains(entry.getKey()) && clients.remove(entry.getKey(), entry.getValue())) {
                closeLater(entry.getKey(), entry.getValue().client());
            }
        }
    }

    /** The replicas the kept client of each group was built for (tests). */
    Map<UUID, List<Integer>> clientReplicas() {
        Map<UUID, List<Integer>> replicas = new java.util.HashMap<>();
        clients.forEach((gid, built) -> replicas.put(gid, built.replicas()));
        return replicas;
    }

    /**
     * Drops the kept client unless another request already replaced it, and says whether it did; closing waits for no
     * network thread.
     */
    private boolean discard(UUID gid, KeptClient client) {
        boolean[] dropped = new boolean[1];
        clients.computeIfPresent(gid, (id, kept) -> {
            dropped[0] = kept == client;
            return dropped[0] ? null : kept;
        });
        if (dropped[0]) {
            closeLater(gid, client.client());
        }
        return dropped[0];
    }

    private static void closeLater(UUID gid, RaftClient client) {
        CompletableFuture.runAsync(() -> {
            try {
                client.close();
            } catch (IOException e) {
                LOG.debug("closing the client of group {}: {}", gid, e.toString());
            }
        });
    }

    private static CompletableFuture<Result> unknown(TopicPartition tp) {
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                tp + " is not in metadata"));
    }

    private static Result result(TopicPartition tp, RaftClientReply reply, Throwable error) {
        if (error != null || reply == null || !reply.isSuccess()) {
            Object cause = error != null ? error : reply == null ? "no reply" : reply.getException();
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": through the leader failed: " + cause);
        }
        return CommandCodec.decodeResult(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    /** A partition's Raft group and its replicas, as metadata lists them now. */
    private record Group(UUID gid, List<Integer> replicas) {
    }

    private Optional<Group> group(TopicPartition tp) {
        Optional<TopicInfo> topic = images.get().topic(tp.topic());
        if (topic.isEmpty() || tp.partition() < 0 || tp.partition() >= topic.get().partitionCount()) {
            return Optional.empty();
        }
        return Optional.of(new Group(PartitionGroups.groupId(topic.get().topicId(), tp.partition()),
                topic.get().replicas().get(tp.partition())));
    }

    private RaftClient newClient(UUID gid, List<Integer> replicas) {
        return RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(RaftGroupId.valueOf(gid), peers.apply(replicas)))
                .setProperties(properties)
                .setParameters(parameters)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(CLIENT_RETRIES_MAX,
                        TimeDuration.valueOf(CLIENT_RETRY_SLEEP_MS, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** Closes every kept client at once, waiting at most {@link #CLOSE_WAIT_MS}; later requests fail at once. */
    @Override
    public void close() {
        BoundedClose.awaitAll("Raft clients to partition leaders", closeAll(), CLOSE_WAIT_MS);
    }

    /** Starts closing every kept client, each on a thread of its own, and returns at once. */
    List<BoundedClose> closeAll() {
        closed = true;
        transfers.shutdownNow();
        List<BoundedClose> closing = new java.util.ArrayList<>();
        for (UUID gid : List.copyOf(clients.keySet())) {
            KeptClient kept = clients.remove(gid);
            if (kept != null) {
                closing.add(BoundedClose.start("Raft client of group " + gid, kept.client()::close));
            }
        }
        return closing;
    }
}
