package dev.cairn.client;

import dev.cairn.client.internal.BrokerConnection;
import dev.cairn.client.internal.ClusterClient;
import dev.cairn.client.internal.ClusterMetadata;
import dev.cairn.client.internal.GroupMembership;
import dev.cairn.client.internal.OffsetsClient;
import dev.cairn.client.internal.RecordDecoder;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.FetchRequest;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.RecordsPayload;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads records from assigned partitions. Not thread-safe: one thread calls every method, as with Kafka's
 * consumer.
 *
 * <pre>
 *   try (CairnConsumer consumer = CairnConsumer.create(ConsumerConfig.builder()
 *           .bootstrapServers("localhost:9092").groupId("billing").build())) {
 *       consumer.assign(List.of(new TopicPartition("events", 0)));
 *       for (ConsumerRecord record : consumer.poll(Duration.ofSeconds(1))) { ... }
 *       consumer.commitSync();
 *   }
 * </pre>
 *
 * <p>Fetches are pipelined: when {@link #poll} returns, the next Fetch per leader is already on its way, so the
 * broker's long poll overlaps with the application's processing. One fetch is in flight per broker; a partition
 * is fetched again only when its buffered records have been returned, so memory is bounded by the fetch sizes.
 * A partition without a position starts from its committed offset (with a group.id), else per auto.offset.reset.
 *
 * <p>{@link #subscribe} joins a consumer group with Kafka's classic protocol ({@link GroupMembership}); the
 * assignment then comes from the group leader, and with enable.auto.commit (the default) positions are committed
 * every auto.commit.interval.ms, before each rebalance and on close. During a cooperative rebalance poll goes on
 * fetching the partitions the member still owns, as kafka-clients does; commits wait for the rebalance to end.
 */
public final class CairnConsumer implements AutoCloseable {
    private final ConsumerConfig config;
    private final ClusterClient cluster;
    private final OffsetsClient offsets;
    private final RecordDecoder decoder;
    private final Map<TopicPartition, PartitionState> assigned = new LinkedHashMap<>();
    private final Map<Integer, InFlightFetch> inFlight = new HashMap<>();
    /**
     * At most one completed fetch per broker waits here, as each broker has at most one fetch in flight, plus a
     * {@link #GROUP_RESPONSE} marker per JoinGroup or SyncGroup answered since the last poll (one of them is in
     * flight at a time, and poll drains the queue).
     */
    private final LinkedBlockingQueue<FetchResult> completed = new LinkedBlockingQueue<>();
    /** Volatile: a failed async commit clears it from a network thread. */
    private volatile int coordinator = -1;
    private boolean metadataStale = true;
    private long backoffUntilMs;
    private boolean closed;
    /** Non-null once subscribe() was called. */
    private GroupMembership group;
    private final RebalanceListenerInvoker listener = new RebalanceListenerInvoker();
    private long nextAutoCommitMs;

    private static final class PartitionState {
        /** The next offset poll returns; -1 until known. */
        private long position = -1;
        /** The next offset to fetch (after the buffered records). */
        private long fetchPosition = -1;
        private boolean committedChecked;
        private final ArrayDeque<ConsumerRecord> buffered = new ArrayDeque<>();
    }

    private record InFlightFetch(BrokerConnection connection, long deadlineMs) {
    }

    private record FetchResult(int nodeId, Map<TopicPartition, Long> fetchOffsets, Struct response,
                               Throwable error) {
    }

    /** Not a fetch: wakes a poll that waits for fetches when a group answer arrives mid-rebalance. */
    private static final FetchResult GROUP_RESPONSE = new FetchResult(-1, Map.of(), null, null);

    private CairnConsumer(ConsumerConfig config) {
        this.config = config;
        this.cluster = new ClusterClient(config.bootstrapServers(), config.clientId(), config.requestTimeoutMs(),
                System::currentTimeMillis);
        this.offsets = new OffsetsClient(cluster);
        this.decoder = new RecordDecoder(config.checkCrcs());
    }

    public static CairnConsumer create(ConsumerConfig config) {
        return new CairnConsumer(config);
    }

    /** Replaces the assignment; partitions kept keep their positions. */
    public void assign(Collection<TopicPartition> partitions) {
        checkOpen();
        if (group != null) {
            throw new IllegalStateException("assign() after subscribe(): call unsubscribe() first");
        }
        Set<TopicPartition> wanted = new HashSet<>(partitions);
        assigned.keySet().retainAll(wanted);
        for (TopicPartition partition : partitions) {
            assigned.computeIfAbsent(partition, unused -> new PartitionState());
        }
        metadataStale = true;
    }

    /**
     * Joins the consumer group (group.id) for these topics; partitions are assigned by the group leader with the
     * first of partition.assignment.strategy that every member supports. The join happens in {@link #poll}.
     */
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener rebalanceListener) {
        checkOpen();
        if (config.groupId() == null) {
            throw new CairnConfigException("subscribe() needs group.id");
        }
        if (topics.isEmpty()) {
            throw new IllegalArgumentException("subscribe() needs at least one topic; use unsubscribe()");
        }
        if (group == null) {
            if (!assigned.isEmpty()) {
                throw new IllegalStateException("subscribe() after assign(): call unsubscribe() first");
            }
            RebalanceHooks hooks = new RebalanceHooks(assigned.keySet(),
                    partition -> assigned.put(partition, new PartitionState()), listener, this::autoCommitSync,
                    () -> metadataStale = true);
            group = new GroupMembership(config, cluster, offsets, hooks, () -> completed.add(GROUP_RESPONSE));
            nextAutoCommitMs = System.currentTimeMillis() + config.autoCommitIntervalMs();
        }
        listener.listener(rebalanceListener);
        group.subscribe(topics);
    }

    public void subscribe(Collection<String> topics) {
        subscribe(topics, ConsumerRebalanceListener.NONE);
    }

    /** The subscribed topics (empty without subscribe()). */
    public Set<String> subscription() {
        return group == null ? Set.of() : Set.copyOf(group.topics());
    }

    /** Leaves the group (committing first with enable.auto.commit) or drops the manual assignment. */
    public void unsubscribe() {
        checkOpen();
        if (group != null) {
            try {
                leaveGroup();
            } finally {
                group = null;
            }
        }
        assigned.clear();
    }

    public Set<TopicPartition> assignment() {
        return Set.copyOf(assigned.keySet());
    }

    /** The next poll of this partition starts at {@code offset}. */
    public void seek(TopicPartition partition, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset + " must be >= 0");
        }
        PartitionState state = stateOf(partition);
        state.position = offset;
        state.fetchPosition = offset;
        state.buffered.clear();
    }

    /** Moves to the log start offset of each partition (asks the leaders now). */
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetsClient.EARLIEST_TIMESTAMP);
    }

    /** Moves to the log end offset of each partition (asks the leaders now). */
    public void seekToEnd(Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetsClient.LATEST_TIMESTAMP);
    }

    private void seekTo(Collection<TopicPartition> partitions, long timestamp) {
        Map<TopicPartition, Long> request = new LinkedHashMap<>();
        partitions.forEach(partition -> request.put(partition, timestamp));
        offsets.listOffsets(request).forEach(this::seek);
    }

    /** The next offset poll returns for a partition, resolving it (committed offset or reset) if unknown. */
    public long position(TopicPartition partition) {
        PartitionState state = stateOf(partition);
        if (state.position < 0) {
            ensurePositions();
        }
        return state.position;
    }

    private PartitionState stateOf(TopicPartition partition) {
        checkOpen();
        PartitionState state = assigned.get(partition);
        if (state == null) {
            throw new IllegalStateException(partition + " is not assigned");
        }
        return state;
    }

    // ------------------------------------------------------------------------------------------------ poll

    /**
     * Returns up to max.poll.records records, waiting up to the timeout for some to arrive. Retriable broker and
     * network errors are retried inside; a non-retriable one (e.g. an out-of-range offset with
     * auto.offset.reset=none) is thrown. In a group, poll also runs the rebalance: a member with nothing to fetch
     * (first join, eager protocol) waits for it, a cooperative member fetches what it owns meanwhile. An exception
     * from the rebalance listener is thrown once the rebalance bookkeeping is done, as a
     * {@link CairnRebalanceListenerException}; poll may be called again after it.
     */
    public List<ConsumerRecord> poll(Duration timeout) {
        checkOpen();
        long deadlineMs = System.currentTimeMillis() + timeout.toMillis();
        if (group != null) {
            group.onPoll(System.currentTimeMillis());
        }
        while (true) {
            if (group != null && !stepGroup(deadlineMs)) {
                return List.of();
            }
            maybeAutoCommit();
            try {
                prepareFetching();
            } catch (CairnException failed) {
                if (!failed.isRetriable()) {
                    throw failed;
                }
                metadataStale = true;
                backoffUntilMs = System.currentTimeMillis() + config.retryBackoffMs();
            }
            for (FetchResult result = completed.poll(); result != null; result = completed.poll()) {
                onFetchResult(result);
            }
            List<ConsumerRecord> records = takeBuffered();
            sendFetches();
            long waitMs = deadlineMs - System.currentTimeMillis();
            if (!records.isEmpty() || waitMs <= 0) {
                return records;
            }
            awaitFetch(nextWaitMs(waitMs));
        }
    }

    /**
     * Runs the group's (re)join. A cooperative member that owns partitions keeps them during a rebalance, so it only
     * takes the steps that need no waiting and goes on fetching: a JoinGroup may be held by the coordinator for the
     * whole rebalance timeout, and kafka-clients goes on returning records from kept partitions meanwhile. Returns
     * false when poll has nothing to do before its deadline (not in the group yet, or owning nothing).
     */
    private boolean stepGroup(long deadlineMs) {
        boolean fetchMeanwhile = group.cooperative() && !assigned.isEmpty();
        boolean stable = group.ensureActive(fetchMeanwhile ? System.currentTimeMillis() : deadlineMs);
        listener.throwIfFailed();
        return stable || fetchMeanwhile || System.currentTimeMillis() < deadlineMs;
    }

    /**
     * How long poll waits for a fetch to complete before looking again: the whole remaining timeout while fetches
     * are in flight (a completion ends the wait), but no longer than a retry backoff when nothing is in flight, so
     * that a missing leader or an unreachable broker is retried within the poll.
     */
    private long nextWaitMs(long remainingMs) {
        long now = System.currentTimeMillis();
        long waitMs = remainingMs;
        if (backoffUntilMs > now) {
            waitMs = Math.min(waitMs, backoffUntilMs - now);
        }
        if (inFlight.isEmpty()) {
            waitMs = Math.min(waitMs, Math.max(1, config.retryBackoffMs()));
        }
        return waitMs;
    }

    private void prepareFetching() {
        if (System.currentTimeMillis() < backoffUntilMs) {
            return;
        }
        if (metadataStale && !assigned.isEmpty()) {
            List<String> topics = new ArrayList<>();
            assigned.keySet().forEach(tp -> {
                if (!topics.contains(tp.topic())) {
                    topics.add(tp.topic());
                }
            });
            cluster.refreshMetadata(topics, true);
            metadataStale = false;
        }
        ensurePositions();
        timeOutFetches();
    }

    private void awaitFetch(long waitMs) {
        try {
            FetchResult result = completed.poll(waitMs, TimeUnit.MILLISECONDS);
            if (result != null) {
                onFetchResult(result);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException("poll interrupted", true, interrupted);
        }
    }

    private List<ConsumerRecord> takeBuffered() {
        List<ConsumerRecord> records = new ArrayList<>();
        for (PartitionState state : assigned.values()) {
            while (!state.buffered.isEmpty() && records.size() < config.pollRecordsMax()) {
                ConsumerRecord record = state.buffered.pollFirst();
                records.add(record);
                state.position = record.offset() + 1;
            }
            if (state.buffered.isEmpty() && state.position >= 0) {
                // Batches may end in offsets with no record left (compaction, control batches): skip past them.
                state.position = Math.max(state.position, state.fetchPosition);
            }
        }
        return records;
    }

    /** Resolves unknown positions: the committed offset if there is one, else auto.offset.reset. */
    private void ensurePositions() {
        List<TopicPartition> unknown = new ArrayList<>();
        assigned.forEach((partition, state) -> {
            if (state.position < 0) {
                unknown.add(partition);
            }
        });
        if (unknown.isEmpty()) {
            return;
        }
        if (config.groupId() != null) {
            List<TopicPartition> unchecked = new ArrayList<>();
            unknown.forEach(tp -> {
                if (!assigned.get(tp).committedChecked) {
                    unchecked.add(tp);
                }
            });
            if (!unchecked.isEmpty()) {
                Map<TopicPartition, Long> committed = offsets.committed(coordinator(), config.groupId(), unchecked);
                unchecked.forEach(tp -> assigned.get(tp).committedChecked = true);
                committed.forEach(this::seek);
                unknown.removeAll(committed.keySet());
            }
        }
        if (unknown.isEmpty()) {
            return;
        }
        if (config.offsetReset() == ConsumerConfig.OffsetReset.NONE) {
            throw new CairnException("no position for " + unknown + " and auto.offset.reset=none", false);
        }
        seekTo(unknown, config.offsetReset() == ConsumerConfig.OffsetReset.EARLIEST
                ? OffsetsClient.EARLIEST_TIMESTAMP : OffsetsClient.LATEST_TIMESTAMP);
    }

    /** A fetch unanswered past request.timeout.ms closes its connection, which fails it and frees the broker slot. */
    private void timeOutFetches() {
        long now = System.currentTimeMillis();
        for (InFlightFetch fetch : List.copyOf(inFlight.values())) {
            if (now > fetch.deadlineMs()) {
                fetch.connection().close();
            }
        }
    }

    /**
     * Sends one Fetch to each leader without one in flight, for its partitions with nothing buffered. While other
     * partitions still have records buffered, the fetch does not long-poll: a partition that has caught up would
     * otherwise hold the leader's one fetch for {@code fetch.max.wait.ms}, and the buffered partitions, once
     * drained, could not be fetched again until it returned.
     */
    private void sendFetches() {
        ClusterMetadata metadata = cluster.metadata();
        if (metadata == null || System.currentTimeMillis() < backoffUntilMs) {
            return;
        }
        Map<Integer, Map<TopicPartition, Long>> byLeader = new LinkedHashMap<>();
        boolean[] anyBuffered = {false};
        assigned.forEach((partition, state) -> {
            if (state.position < 0 || !state.buffered.isEmpty()) {
                anyBuffered[0] |= !state.buffered.isEmpty();
                return;
            }
            int leader = metadata.leaderOf(partition);
            if (leader < 0) {
                metadataStale = true;
            } else if (!inFlight.containsKey(leader)) {
                byLeader.computeIfAbsent(leader, unused -> new LinkedHashMap<>()).put(partition, state.fetchPosition);
            }
        });
        for (Map.Entry<Integer, Map<TopicPartition, Long>> entry : byLeader.entrySet()) {
            int nodeId = entry.getKey();
            Map<TopicPartition, Long> fetchOffsets = entry.getValue();
            BrokerConnection connection;
            try {
                connection = cluster.connection(nodeId);
            } catch (CairnException unreachable) {
                if (!unreachable.isRetriable()) {
                    throw unreachable;
                }
                metadataStale = true;
                backoffUntilMs = System.currentTimeMillis() + config.retryBackoffMs();
                continue;
            }
            inFlight.put(nodeId, new InFlightFetch(connection,
                    System.currentTimeMillis() + config.requestTimeoutMs()));
            int maxWaitMs = anyBuffered[0] ? 0 : config.fetchMaxWaitMs();
            connection.send(ApiKey.FETCH, fetchRequest(fetchOffsets, maxWaitMs), true).whenComplete((response, error) ->
                    completed.add(new FetchResult(nodeId, fetchOffsets, response, error)));
        }
    }

    private Struct fetchRequest(Map<TopicPartition, Long> fetchOffsets, int maxWaitMs) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        fetchOffsets.forEach((partition, offset) -> byTopic.computeIfAbsent(partition.topic(),
                unused -> new ArrayList<>()).add(new Struct(FetchRequest.FetchPartition.SCHEMA)
                .set(FetchRequest.FetchPartition.PARTITION, partition.partition())
                .set(FetchRequest.FetchPartition.FETCH_OFFSET, offset)
                .set(FetchRequest.FetchPartition.PARTITION_MAX_BYTES, config.partitionFetchBytesMax())));
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, partitions) -> topics.add(new Struct(FetchRequest.FetchTopic.SCHEMA)
                .set(FetchRequest.FetchTopic.TOPIC, name)
                .set(FetchRequest.FetchTopic.PARTITIONS, partitions)));
        // Session id 0 with epoch -1 asks for full fetches: the response lists exactly the requested partitions.
        return new Struct(FetchRequest.SCHEMA)
                .set(FetchRequest.REPLICA_ID, -1)
                .set(FetchRequest.MAX_WAIT_MS, maxWaitMs)
                .set(FetchRequest.MIN_BYTES, config.fetchMinBytes())
                .set(FetchRequest.MAX_BYTES, config.fetchMaxBytes())
                .set(FetchRequest.ISOLATION_LEVEL, (byte) 0)
                .set(FetchRequest.SESSION_ID, 0)
                .set(FetchRequest.SESSION_EPOCH, -1)
                .set(FetchRequest.TOPICS, topics)
                .set(FetchRequest.FORGOTTEN_TOPICS_DATA, List.of());
    }

    private void onFetchResult(FetchResult result) {
        if (result == GROUP_RESPONSE) {
            return; // Only a wake-up: the next turn of the poll loop steps the rebalance.
        }
        inFlight.remove(result.nodeId());
        if (result.error() != null) {
            metadataStale = true;
            backoffUntilMs = System.currentTimeMillis() + config.retryBackoffMs();
            return;
        }
        for (Struct topic : result.response().get(FetchResponse.RESPONSES)) {
            String name = topic.get(FetchResponse.FetchableTopicResponse.TOPIC);
            for (Struct partition : topic.get(FetchResponse.FetchableTopicResponse.PARTITIONS)) {
                TopicPartition topicPartition = new TopicPartition(name,
                        partition.get(FetchResponse.PartitionData.PARTITION_INDEX));
                onFetchedPartition(topicPartition, result.fetchOffsets().get(topicPartition), partition);
            }
        }
    }

    private void onFetchedPartition(TopicPartition topicPartition, Long fetchOffset, Struct partition) {
        PartitionState state = assigned.get(topicPartition);
        if (state == null || fetchOffset == null || state.fetchPosition != fetchOffset) {
            return; // Unassigned or moved by a seek while the fetch was in flight: the data is stale.
        }
        ErrorCode error = ErrorCode.forCode(partition.get(FetchResponse.PartitionData.ERROR_CODE));
        if (error == ErrorCode.OFFSET_OUT_OF_RANGE) {
            if (config.offsetReset() == ConsumerConfig.OffsetReset.NONE) {
                throw new CairnApiException(error, "fetch of " + topicPartition + " at offset " + fetchOffset);
            }
            state.position = -1;
            state.fetchPosition = -1;
            state.committedChecked = true;
            return;
        }
        if (error != ErrorCode.NONE) {
            if (!error.retriable()) {
                throw new CairnApiException(error, "fetch of " + topicPartition);
            }
            metadataStale = true;
            return;
        }
        RecordsPayload records = partition.get(FetchResponse.PartitionData.RECORDS);
        if (records == null || records.sizeInBytes() == 0) {
            return;
        }
        RecordDecoder.Decoded decoded = decoder.decode(topicPartition, ByteBufferRecords.bufferOf(records),
                fetchOffset);
        state.buffered.addAll(decoded.records());
        state.fetchPosition = decoded.nextFetchOffset();
    }

    // ------------------------------------------------------------------------------------------------ commits

    private int coordinator() {
        if (config.groupId() == null) {
            throw new CairnConfigException("committed offsets need group.id");
        }
        if (group != null) {
            return group.coordinator();
        }
        if (coordinator < 0) {
            coordinator = offsets.findCoordinator(config.groupId());
        }
        return coordinator;
    }

    /** Commits the current position of every assigned partition that has one. */
    public void commitSync() {
        commitSync(currentPositions(), Duration.ofMillis(config.defaultApiTimeoutMs()));
    }

    /** Commits the given offsets (the next offset to read, as in Kafka) and waits for the answer. */
    public void commitSync(Map<TopicPartition, Long> commits, Duration timeout) {
        try {
            commitAsync(commits).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            throw new CairnTimeoutException("OffsetCommit not answered within " + timeout.toMillis() + " ms");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException("commit interrupted", true, interrupted);
        } catch (ExecutionException failed) {
            throw OffsetsClient.unwrap(failed);
        }
    }

    /** Commits the current positions without waiting; the future completes on a network thread. */
    public CompletableFuture<Void> commitAsync() {
        return commitAsync(currentPositions());
    }

    /**
     * Commits without waiting. In a group the commit carries the member's generation; ILLEGAL_GENERATION or
     * UNKNOWN_MEMBER_ID (the group moved on) fail it for good and make the member rejoin, REBALANCE_IN_PROGRESS
     * makes it rejoin too. While this member is itself rebalancing the commit fails at once with
     * REBALANCE_IN_PROGRESS, as in kafka-clients: nothing is lost, the positions stay uncommitted until a commit
     * after the rebalance (or on revoke, while the partitions are still owned) carries them.
     */
    public CompletableFuture<Void> commitAsync(Map<TopicPartition, Long> commits) {
        checkOpen();
        if (commits.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        GroupMembership member = group;
        if (member != null && member.hasGeneration() && member.rebalanceInProgress()) {
            return CompletableFuture.failedFuture(new CairnApiException(ErrorCode.REBALANCE_IN_PROGRESS,
                    "commit of " + commits.keySet() + " for group " + config.groupId()
                            + " during a rebalance: poll to complete the rebalance, then commit again"));
        }
        CompletableFuture<Void> sent = member == null
                ? offsets.commit(coordinator(), config.groupId(), Map.copyOf(commits))
                : offsets.commit(coordinator(), config.groupId(), member.member(), Map.copyOf(commits));
        return sent.whenComplete((ignored, error) -> {
            if (error != null && OffsetsClient.unwrap(error) instanceof CairnApiException apiError) {
                if (member != null) {
                    member.onGroupError(apiError.errorCode());
                } else if (apiError.errorCode() == ErrorCode.NOT_COORDINATOR
                        || apiError.errorCode() == ErrorCode.COORDINATOR_NOT_AVAILABLE) {
                    coordinator = -1;
                }
            }
        });
    }

    private void maybeAutoCommit() {
        long now = System.currentTimeMillis();
        if (group == null || !config.autoCommit() || now < nextAutoCommitMs) {
            return;
        }
        nextAutoCommitMs = now + config.autoCommitIntervalMs();
        Map<TopicPartition, Long> positions = currentPositions();
        if (!positions.isEmpty()) {
            commitAsync(positions); // A failure is retried at the next interval with newer positions.
        }
    }

    /** Commits synchronously when auto-committing; a failure is swallowed as kafka-clients does before a rebalance. */
    private void autoCommitSync() {
        if (!config.autoCommit()) {
            return;
        }
        Map<TopicPartition, Long> positions = currentPositions();
        if (positions.isEmpty()) {
            return;
        }
        try {
            commitSync(positions, Duration.ofMillis(config.defaultApiTimeoutMs()));
        } catch (CairnException failed) {
            // The next owner starts from the last successful commit; records since then are read again.
        }
    }

    /**
     * kafka-clients' close and unsubscribe: commit (auto-commit), revoke, LeaveGroup. A listener failure does not
     * stop the LeaveGroup; it is thrown afterwards.
     */
    private void leaveGroup() {
        try {
            // As kafka-clients' onLeavePrepare: with a valid generation and no rebalance under way the partitions
            // are revoked (after the auto-commit); a fenced member, or one mid-rebalance (whose commit would be
            // refused), loses them.
            Set<TopicPartition> owned = Set.copyOf(assigned.keySet());
            if (group.hasGeneration() && !group.rebalanceInProgress()) {
                autoCommitSync();
                if (!owned.isEmpty()) {
                    listener.revoked(owned);
                }
            } else if (!owned.isEmpty()) {
                listener.lost(owned);
            }
            group.leave();
        } finally {
            group.close();
            assigned.clear();
        }
        listener.throwIfFailed();
    }

    /** True while this subscribed member is (re)joining its group; for tests and diagnostics. */
    boolean rebalanceInProgress() {
        return group != null && group.rebalanceInProgress();
    }

    /** The group's committed offsets for these partitions; partitions without one are absent. */
    public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
        checkOpen();
        return offsets.committed(coordinator(), config.groupId(), partitions);
    }

    private Map<TopicPartition, Long> currentPositions() {
        Map<TopicPartition, Long> positions = new LinkedHashMap<>();
        assigned.forEach((partition, state) -> {
            if (state.position >= 0) {
                positions.put(partition, state.position);
            }
        });
        return positions;
    }

    private void checkOpen() {
        if (closed) {
            throw new CairnClosedException("consumer closed");
        }
    }

    /** Leaves the group if subscribed (see {@link #unsubscribe()}), then closes every connection. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (group != null) {
                leaveGroup();
            }
        } finally {
            closed = true;
            cluster.close();
        }
    }
}
