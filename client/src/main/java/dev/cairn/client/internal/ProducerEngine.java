package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnClosedException;
import dev.cairn.client.CairnException;
import dev.cairn.client.CairnNetworkException;
import dev.cairn.client.CairnTimeoutException;
import dev.cairn.client.ProducerConfig;
import dev.cairn.client.RecordMetadata;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.InitProducerIdRequest;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.RecordHeader;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The producer's accumulator and its sender thread.
 *
 * <p>Callers append records to per-partition queues of batches under one lock; the single sender thread drains
 * batches that are full, older than linger.ms, or wanted by flush/close, groups them per leader into one Produce
 * request, and sends it on that broker's connection. Responses arrive on the connection's reader thread and are
 * applied under the same lock; futures are completed outside it.
 *
 * <p>Ordering and idempotence: every batch of a partition gets the next sequence number when first drained, and
 * batches of a partition are sent strictly in sequence order, at most {@code max.in.flight} at a time. A batch
 * that fails with a retriable error (including a dropped connection, whose outcome is unknown) goes back to the
 * front of its queue with its sequence and its built bytes unchanged, and is resent only when it is the next in
 * order; the broker answers a batch it already appended with the original offset (kafka-protocol.md A.3), so a
 * retry never duplicates. A batch that fails for good leaves a sequence gap, so the producer bumps its epoch and
 * renumbers what has not been acknowledged from sequence 0 (KIP-360: an idempotent producer bumps the epoch itself,
 * and the broker accepts a higher epoch that starts at sequence 0); only when the epoch is exhausted does it take
 * a new producer id.
 */
public final class ProducerEngine implements AutoCloseable {
    /** Transaction timeout sent with InitProducerId; only transactional producers use it (Kafka's default). */
    private static final int TRANSACTION_TIMEOUT_MS = 60_000;
    /** The longest the sender sleeps with nothing to do, so that time-based checks still run. */
    private static final long SENDER_IDLE_WAIT_MS = 100;

    private final ProducerConfig config;
    private final ClusterClient cluster;
    private final Partitioner partitioner;
    /** Reads back a batch that the broker refused as too large, to split it; used under the lock. */
    private final RecordDecoder splitDecoder = new RecordDecoder(false);
    private final Object lock = new Object();
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final Map<Integer, Integer> inFlightRequestsByNode = new HashMap<>();
    private final List<InFlightRequest> inFlightRequests = new ArrayList<>();
    /** Topics sent to; concurrent, so that a send to a known topic does not take the lock for it. */
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Long> nodeBackoffUntilMs = new HashMap<>();
    private final Thread sender;
    private long reservedBytes;
    /** Callers waiting in {@link #reserveMemory} for buffer memory to be released. */
    private int memoryWaiters;
    private long producerId = -1;
    private short producerEpoch = -1;
    private int flushesInProgress;
    private boolean closing;
    private boolean closed;
    private boolean metadataRefreshWanted;
    private long lastMetadataRefreshMs;
    private CairnException fatalError;
    /** Batches sent again after a retriable failure; tests read it to prove that a fault hit in-flight data. */
    private long retriedBatches;
    /** Batches split in two after the broker refused them as too large. */
    private long splitBatches;
    /** Consecutive metadata or InitProducerId failures (sender thread only), for the backoff. */
    private int setupFailures;
    /** No metadata refresh or InitProducerId before this time, after a failure. */
    private long setupNotBeforeMs;

    private static final class PartitionState {
        private final ArrayDeque<ProducerBatch> queued = new ArrayDeque<>();
        private final ArrayDeque<ProducerBatch> inFlight = new ArrayDeque<>();
        private int nextSequence;
        private long nextBatchNumber;
        /** The producer id and epoch under which a batch of this partition was last acknowledged. */
        private long acknowledgedProducerId = Long.MIN_VALUE;
        private short acknowledgedProducerEpoch = Short.MIN_VALUE;
    }

    private record InFlightRequest(int nodeId, BrokerConnection connection, long deadlineMs) {
    }

    public ProducerEngine(ProducerConfig config, ClusterClient cluster) {
        this.config = config;
        this.cluster = cluster;
        this.partitioner = new Partitioner(config.batchSizeBytes());
        this.sender = new Thread(this::runSender, "cairn-producer-sender-" + config.clientId());
        this.sender.setDaemon(true);
        this.sender.start();
    }

    private static long nowMs() {
        return System.currentTimeMillis();
    }

    // ------------------------------------------------------------------------------------------------ append

    /** The number of partitions of a topic, fetching metadata (and auto-creating the topic) within maxBlockMs. */
    public int partitionCount(String topic, long deadlineMs) {
        topics.add(topic);
        ClusterMetadata metadata = cluster.metadata();
        int attempt = 0;
        while (metadata == null || metadata.partitionCount(topic) <= 0) {
            if (attempt > 0) {
                sleepBackoff(attempt, deadlineMs, "metadata for topic " + topic);
            }
            attempt++;
            List<String> wanted = new ArrayList<>(topics);
            try {
                metadata = cluster.refreshMetadata(wanted, true);
            } catch (CairnException failed) {
                if (!failed.isRetriable()) {
                    throw failed;
                }
                if (nowMs() >= deadlineMs) {
                    throw new CairnTimeoutException("metadata for topic " + topic + " not available within "
                            + "max.block.ms=" + config.maxBlockMs(), failed);
                }
                continue;
            }
            ClusterMetadata.TopicMetadata described = metadata.topics().get(topic);
            if (described != null && described.error() != ErrorCode.NONE && !described.error().retriable()) {
                throw new CairnApiException(described.error(), "metadata for topic " + topic);
            }
        }
        return metadata.partitionCount(topic);
    }

    private void sleepBackoff(int attempt, long deadlineMs, String what) {
        long waitMs = Math.min(backoffMs(attempt), deadlineMs - nowMs());
        if (waitMs <= 0) {
            throw new CairnTimeoutException(what + " not available within max.block.ms=" + config.maxBlockMs());
        }
        try {
            // A bounded backoff between metadata attempts on the caller's thread; nothing signals a change.
            TimeUnit.MILLISECONDS.sleep(waitMs);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException("interrupted while waiting for " + what, true, interrupted);
        }
    }

    private long backoffMs(int attempt) {
        long exponential = config.retryBackoffMs() << Math.min(attempt - 1, 20);
        return Math.max(1, Math.min(config.retryBackoffMaxMs(), exponential));
    }

    /** Chooses a partition for a record without one: murmur2 of its key, or the sticky partition. */
    public int choosePartition(String topic, byte[] key, int partitionCount) {
        return partitioner.partition(topic, key, partitionCount);
    }

    /**
     * Appends a record to its partition's open batch, starting a new batch (and waiting up to the deadline for
     * buffer memory) when it does not fit. {@code stickyPartitionCount} is the topic's partition count when the
     * partition was chosen by stickiness (a record without key or partition), so that the partitioner can count it;
     * 0 otherwise.
     */
    public CompletableFuture<RecordMetadata> append(TopicPartition topicPartition, long timestampMs, byte[] key,
                                                    byte[] value, RecordHeader[] headers, long deadlineMs,
                                                    int stickyPartitionCount) {
        synchronized (lock) {
            checkAccepting();
            PartitionState state = partitions.computeIfAbsent(topicPartition, unused -> new PartitionState());
            ProducerBatch batch = state.queued.peekLast();
            CompletableFuture<RecordMetadata> future;
            int sizeBefore;
            if (batch != null && batch.hasRoomFor(timestampMs, key, value, headers, config.batchSizeBytes())) {
                sizeBefore = batch.estimatedSizeInBytes();
                future = batch.append(timestampMs, key, value, headers);
            } else {
                if (batch != null) {
                    batch.closed = true;
                }
                int recordBytes = RecordBatchBuilder.recordSizeInBytes(0, 0, wrap(key), wrap(value), headers)
                        + RecordBatchDescriptor.HEADER_BYTES;
                checkRecordSize(recordBytes);
                long reserve = Math.max(config.batchSizeBytes(), recordBytes);
                reserveMemory(reserve, deadlineMs);
                // The records buffer starts at the reserved size, so it is not regrown while the batch fills.
                int recordsBytes = (int) Math.max(0, reserve - RecordBatchDescriptor.HEADER_BYTES);
                batch = new ProducerBatch(topicPartition, state.nextBatchNumber++,
                        new RecordBatchBuilder(config.compressionType(), recordsBytes), nowMs(), reserve);
                state.queued.addLast(batch);
                sizeBefore = RecordBatchDescriptor.HEADER_BYTES;
                future = batch.append(timestampMs, key, value, headers);
                lock.notifyAll();
            }
            int appendedBytes = batch.estimatedSizeInBytes() - sizeBefore;
            // Full: another record like this one would not fit. A full batch goes now rather than at the end of
            // linger.ms: the sticky partitioner moves on once the batch is full, so no next record would close it.
            boolean batchFull = batch.estimatedSizeInBytes() + appendedBytes > config.batchSizeBytes();
            if (batchFull && !batch.closed) {
                batch.closed = true;
                lock.notifyAll();
            }
            if (stickyPartitionCount > 0) {
                partitioner.onStickyAppend(topicPartition.topic(), topicPartition.partition(), appendedBytes,
                        batchFull, stickyPartitionCount);
            }
            return future;
        }
    }

    /** A record that can never be sent fails at once, as in Kafka (RecordTooLargeException). */
    private void checkRecordSize(int recordBytes) {
        if (recordBytes > config.requestSizeMaxBytes() || recordBytes > config.bufferMemoryBytes()) {
            throw new CairnApiException(ErrorCode.MESSAGE_TOO_LARGE, "a record of " + recordBytes
                    + " bytes (in its own batch) exceeds max.request.size=" + config.requestSizeMaxBytes()
                    + " or buffer.memory=" + config.bufferMemoryBytes());
        }
    }

    private static ByteBuffer wrap(byte[] bytes) {
        return bytes == null ? null : ByteBuffer.wrap(bytes);
    }

    private void checkAccepting() {
        if (closing) {
            throw new CairnClosedException("producer closed");
        }
        if (fatalError != null) {
            throw fatalError;
        }
    }

    /** Waits (lock held, released while waiting) until buffer.memory has room for {@code bytes}. */
    private void reserveMemory(long bytes, long deadlineMs) {
        while (reservedBytes > 0 && reservedBytes + bytes > config.bufferMemoryBytes()) {
            long waitMs = deadlineMs - nowMs();
            if (waitMs <= 0) {
                throw new CairnTimeoutException("no room in buffer.memory=" + config.bufferMemoryBytes()
                        + " bytes within max.block.ms=" + config.maxBlockMs());
            }
            memoryWaiters++;
            try {
                lock.wait(waitMs);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new CairnException("interrupted while waiting for buffer memory", true, interrupted);
            } finally {
                memoryWaiters--;
            }
            checkAccepting();
        }
        reservedBytes += bytes;
    }

    // ------------------------------------------------------------------------------------------------ flush, close

    /** Makes every batch sendable now and waits until the batches that exist at the call are done. */
    public void flush(long timeoutMs) {
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        synchronized (lock) {
            for (PartitionState state : partitions.values()) {
                state.queued.forEach(batch -> pending.add(batch.done));
                state.inFlight.forEach(batch -> pending.add(batch.done));
            }
            flushesInProgress++;
            lock.notifyAll();
        }
        try {
            CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(timeoutMs,
                    TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            throw new CairnTimeoutException("flush did not finish within " + timeoutMs + " ms");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException("interrupted during flush", true, interrupted);
        } catch (ExecutionException impossible) {
            throw new IllegalStateException("batch completion futures never fail", impossible);
        } finally {
            synchronized (lock) {
                flushesInProgress--;
            }
        }
    }

    /**
     * Stops accepting records, sends what is queued, and waits up to the timeout; whatever is still unfinished then
     * fails with {@link CairnClosedException}.
     */
    @Override
    public void close() {
        close(Long.MAX_VALUE);
    }

    public void close(long timeoutMs) {
        synchronized (lock) {
            closing = true;
            lock.notifyAll();
        }
        try {
            sender.join(Math.max(1, Math.min(timeoutMs, Long.MAX_VALUE / 2)));
            if (sender.isAlive()) {
                synchronized (lock) {
                    closed = true;
                    lock.notifyAll();
                }
                cluster.close();
                sender.join(config.requestTimeoutMs());
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        List<ProducerBatch> abandoned = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            for (PartitionState state : partitions.values()) {
                abandoned.addAll(state.queued);
                abandoned.addAll(state.inFlight);
                state.queued.clear();
                state.inFlight.clear();
            }
        }
        abandoned.forEach(batch -> batch.fail(new CairnClosedException("producer closed before the batch was sent")));
        cluster.close();
    }

    /** The number of batches split in two because the broker refused them as too large. */
    public long splitBatches() {
        synchronized (lock) {
            return splitBatches;
        }
    }

    /** The number of batch retries so far. */
    public long retriedBatches() {
        synchronized (lock) {
            return retriedBatches;
        }
    }

    /**
     * Test hook for network drops: waits up to the timeout until a Produce request is awaiting its response, then
     * closes every connection so that it fails and is retried. Returns false if nothing was in flight in time.
     */
    public boolean dropConnectionsWhileInFlight(long timeoutMs) {
        long deadlineMs = nowMs() + timeoutMs;
        synchronized (lock) {
            while (inFlightRequests.isEmpty()) {
                long waitMs = deadlineMs - nowMs();
                if (waitMs <= 0) {
                    return false;
                }
                try {
                    lock.wait(waitMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        cluster.disconnectAll();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ sender

    private void runSender() {
        int consecutiveFailures = 0;
        while (true) {
            try {
                if (!runOnce()) {
                    return;
                }
                consecutiveFailures = 0;
            } catch (CairnException failed) {
                // Connecting, metadata and InitProducerId failures end up here: the batches stay queued and the
                // loop retries after a backoff until their delivery timeout fails them.
                consecutiveFailures++;
                synchronized (lock) {
                    metadataRefreshWanted = true;
                    waitUntil(nowMs() + backoffMs(consecutiveFailures));
                }
            }
        }
    }

    /** One pass of the sender; false once closed and drained. */
    private boolean runOnce() {
        Map<Integer, List<ProducerBatch>> ready;
        List<ProducerBatch> expired = new ArrayList<>();
        synchronized (lock) {
            if (closed || (closing && isDrained())) {
                return false;
            }
        }
        maybeTimeOutRequests();
        try {
            maybeRefreshMetadata();
            maybeInitProducerId();
            setupFailures = 0;
        } catch (CairnException failed) {
            // Metadata and InitProducerId failures must not stop the sender from expiring and sending batches:
            // note the failure, back off the next attempt, and carry on with what can be done.
            setupFailures++;
            synchronized (lock) {
                metadataRefreshWanted = true;
                setupNotBeforeMs = nowMs() + backoffMs(setupFailures);
            }
        }
        synchronized (lock) {
            long now = nowMs();
            expireBatches(now, expired);
            ready = drain(now);
            if (ready.isEmpty() && expired.isEmpty()) {
                waitUntil(nextWakeMs(now));
            }
        }
        expired.forEach(batch -> batch.fail(new CairnTimeoutException("batch for " + batch.topicPartition
                + " not acknowledged within delivery.timeout.ms=" + config.deliveryTimeoutMs())));
        for (Map.Entry<Integer, List<ProducerBatch>> entry : ready.entrySet()) {
            sendProduce(entry.getKey(), entry.getValue());
        }
        return true;
    }

    private boolean isDrained() {
        for (PartitionState state : partitions.values()) {
            if (!state.queued.isEmpty() || !state.inFlight.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private void waitUntil(long wakeMs) {
        long waitMs = Math.min(SENDER_IDLE_WAIT_MS, wakeMs - nowMs());
        if (waitMs <= 0) {
            return;
        }
        try {
            lock.wait(waitMs);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /**
     * When the sender must look again on its own: the end of a batch's linger or retry backoff. A batch that is
     * due but was not drained is blocked (in-flight limits, no leader yet, broker backoff); a response notifies
     * the lock when that changes, and the idle cap bounds the rest. Counting blocked batches as due would spin.
     */
    private long nextWakeMs(long now) {
        long wake = now + SENDER_IDLE_WAIT_MS;
        boolean force = flushesInProgress > 0 || closing;
        for (PartitionState state : partitions.values()) {
            ProducerBatch head = state.queued.peekFirst();
            if (head == null) {
                continue;
            }
            if (head.retryNotBeforeMs > now) {
                wake = Math.min(wake, head.retryNotBeforeMs);
                continue;
            }
            long lingerEndMs = head.createdMs + config.lingerMs();
            boolean full = head.closed || state.queued.size() > 1;
            if (lingerEndMs > now && !full && !force && head.baseSequence < 0) {
                wake = Math.min(wake, lingerEndMs);
            }
        }
        return wake;
    }

    /** A request without an answer within request.timeout.ms closes its connection, which retries its batches. */
    private void maybeTimeOutRequests() {
        List<BrokerConnection> stale = new ArrayList<>();
        synchronized (lock) {
            long now = nowMs();
            for (InFlightRequest request : inFlightRequests) {
                if (now > request.deadlineMs()) {
                    stale.add(request.connection());
                }
            }
        }
        stale.forEach(BrokerConnection::close);
    }

    private void maybeRefreshMetadata() {
        List<String> wanted;
        synchronized (lock) {
            long now = nowMs();
            if (now < setupNotBeforeMs) {
                return;
            }
            boolean due = metadataRefreshWanted && now - lastMetadataRefreshMs >= config.retryBackoffMs();
            boolean stale = now - lastMetadataRefreshMs >= config.metadataMaxAgeMs();
            if ((!due && !stale) || topics.isEmpty()) {
                return;
            }
            metadataRefreshWanted = false;
            lastMetadataRefreshMs = now;
            wanted = new ArrayList<>(topics);
        }
        cluster.refreshMetadata(wanted, true);
    }

    private void maybeInitProducerId() {
        synchronized (lock) {
            if (!config.idempotent() || producerId >= 0 || partitions.isEmpty() || nowMs() < setupNotBeforeMs) {
                return;
            }
        }
        BrokerConnection connection = cluster.anyConnection();
        Struct request = new Struct(InitProducerIdRequest.SCHEMA)
                .set(InitProducerIdRequest.TRANSACTIONAL_ID, null)
                .set(InitProducerIdRequest.TRANSACTION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS);
        Struct response = BrokerConnection.await(connection.send(ApiKey.INIT_PRODUCER_ID, request, true),
                config.requestTimeoutMs(), "InitProducerId");
        ErrorCode error = ErrorCode.forCode(response.get(InitProducerIdResponse.ERROR_CODE));
        if (error != ErrorCode.NONE) {
            CairnApiException failure = new CairnApiException(error, "InitProducerId");
            if (!error.retriable()) {
                failEverything(failure);
            }
            throw failure;
        }
        synchronized (lock) {
            producerId = response.get(InitProducerIdResponse.PRODUCER_ID);
            producerEpoch = response.get(InitProducerIdResponse.PRODUCER_EPOCH);
            lock.notifyAll();
        }
    }

    /** A non-retriable InitProducerId error (e.g. no broker support) makes idempotent sending impossible. */
    private void failEverything(CairnApiException failure) {
        List<ProducerBatch> failed = new ArrayList<>();
        synchronized (lock) {
            fatalError = failure;
            for (PartitionState state : partitions.values()) {
                failed.addAll(state.queued);
                state.queued.clear();
            }
            releaseAll(failed);
        }
        failed.forEach(batch -> batch.fail(failure));
    }

    private void releaseAll(List<ProducerBatch> batches) {
        for (ProducerBatch batch : batches) {
            reservedBytes -= batch.reservedBytes;
        }
        lock.notifyAll();
    }

    /**
     * Fails the queued batches older than delivery.timeout.ms. A partition's queue is in creation order (retries
     * are requeued in place), so the scan stops at its first batch still in time: the sender runs this on every
     * pass, and a full buffer holds thousands of batches.
     */
    private void expireBatches(long now, List<ProducerBatch> expired) {
        for (PartitionState state : partitions.values()) {
            Iterator<ProducerBatch> queued = state.queued.iterator();
            while (queued.hasNext()) {
                ProducerBatch batch = queued.next();
                if (now - batch.createdMs < config.deliveryTimeoutMs()) {
                    break;
                }
                queued.remove();
                expired.add(batch);
                if (batch.baseSequence >= 0) {
                    // An expired batch that was ever sequenced leaves a gap the broker would reject for ever.
                    resetProducerId();
                }
            }
        }
        releaseAll(expired);
    }

    /**
     * Takes the sendable head batch of each partition, grouped by leader; lock held. As in kafka-clients, a leader
     * is ready when one of its partitions has a batch that is due (full, lingered, retried or flushed), and then the
     * head batches of all its partitions go in the request, due or not: a request slot (5 per connection) carries
     * all it can, which matters when the broker is slow and the slots are the bottleneck.
     */
    private Map<Integer, List<ProducerBatch>> drain(long now) {
        Map<Integer, List<ProducerBatch>> ready = new LinkedHashMap<>();
        if (config.idempotent() && producerId < 0) {
            return ready;
        }
        ClusterMetadata metadata = cluster.metadata();
        boolean force = flushesInProgress > 0 || closing;
        Set<Integer> readyLeaders = new HashSet<>();
        for (Map.Entry<TopicPartition, PartitionState> entry : partitions.entrySet()) {
            PartitionState state = entry.getValue();
            ProducerBatch head = state.queued.peekFirst();
            if (head == null || now < head.retryNotBeforeMs || !isSendable(state, head, now, force)) {
                continue;
            }
            int leader = metadata == null ? -1 : metadata.leaderOf(entry.getKey());
            if (leader < 0) {
                metadataRefreshWanted = true;
            } else {
                readyLeaders.add(leader);
            }
        }
        if (readyLeaders.isEmpty()) {
            return ready;
        }
        Map<Integer, Integer> requestBytes = new HashMap<>();
        for (Map.Entry<TopicPartition, PartitionState> entry : partitions.entrySet()) {
            PartitionState state = entry.getValue();
            ProducerBatch head = state.queued.peekFirst();
            if (head == null || now < head.retryNotBeforeMs || !isSendable(state, head, now, true)) {
                continue;
            }
            int leader = metadata == null ? -1 : metadata.leaderOf(entry.getKey());
            if (!readyLeaders.contains(leader) || nodeBackoffUntilMs.getOrDefault(leader, 0L) > now) {
                continue;
            }
            boolean newRequest = !ready.containsKey(leader);
            if (newRequest && inFlightRequestsByNode.getOrDefault(leader, 0) >= config.inFlightRequestsMax()) {
                continue;
            }
            int bytes = requestBytes.getOrDefault(leader, 0);
            if (!newRequest && bytes + head.estimatedSizeInBytes() > config.requestSizeMaxBytes()) {
                continue;
            }
            state.queued.pollFirst();
            if (!head.closed) {
                partitioner.onBatchSent(head.topicPartition.topic(), head.topicPartition.partition());
            }
            head.closed = true;
            if (head.baseSequence < 0) {
                head.baseSequence = state.nextSequence;
                state.nextSequence = ProducerBatch.incrementSequence(state.nextSequence, head.recordsCount());
            }
            head.sendProducerId = producerId;
            head.sendProducerEpoch = producerEpoch;
            head.attempts++;
            state.inFlight.addLast(head);
            requestBytes.put(leader, bytes + head.estimatedSizeInBytes());
            if (newRequest) {
                inFlightRequestsByNode.merge(leader, 1, Integer::sum);
            }
            ready.computeIfAbsent(leader, unused -> new ArrayList<>()).add(head);
        }
        return ready;
    }

    /**
     * Whether a partition's head batch may go now: it must be due (full, lingered, retried, or flushed; any batch
     * when {@code force}), the partition must have room in flight, and a retried batch must be the next in sequence
     * after what is in flight.
     */
    private boolean isSendable(PartitionState state, ProducerBatch head, long now, boolean force) {
        boolean due = head.closed || state.queued.size() > 1 || force || head.baseSequence >= 0
                || now - head.createdMs >= config.lingerMs();
        if (!due || state.inFlight.size() >= config.inFlightRequestsMax()) {
            return false;
        }
        boolean acknowledgedUnderCurrent = state.acknowledgedProducerId == producerId
                && state.acknowledgedProducerEpoch == producerEpoch;
        if (!acknowledgedUnderCurrent && !state.inFlight.isEmpty()) {
            // A broker accepts any sequence from a producer it has no state for (kafka-protocol.md A.3), so if the
            // first batch failed, a pipelined second one would be written ahead of it. Until a batch of this
            // partition is acknowledged under the current producer id and epoch, only one batch is in flight.
            return false;
        }
        if (head.baseSequence >= 0 && !state.inFlight.isEmpty()) {
            return ProducerBatch.incrementSequence(state.inFlight.peekLast().lastSequence(), 1) == head.baseSequence;
        }
        return true;
    }

    private void sendProduce(int nodeId, List<ProducerBatch> batches) {
        BrokerConnection connection;
        Struct request;
        try {
            connection = cluster.connection(nodeId);
            request = produceRequest(batches);
        } catch (CairnException failed) {
            synchronized (lock) {
                nodeBackoffUntilMs.put(nodeId, nowMs() + config.retryBackoffMs());
            }
            onProduceResponse(nodeId, null, batches, null, failed);
            return;
        }
        boolean expectResponse = config.acks() != 0;
        InFlightRequest inFlight = new InFlightRequest(nodeId, connection, nowMs() + config.requestTimeoutMs());
        if (expectResponse) {
            synchronized (lock) {
                inFlightRequests.add(inFlight);
                lock.notifyAll();
            }
        }
        connection.send(ApiKey.PRODUCE, request, expectResponse).whenComplete((response, error) ->
                onProduceResponse(nodeId, expectResponse ? inFlight : null, batches, response, error));
    }

    private Struct produceRequest(List<ProducerBatch> batches) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        for (ProducerBatch batch : batches) {
            ByteBuffer bytes;
            try {
                bytes = batch.build(batch.sendProducerId, batch.sendProducerEpoch, config.idempotent());
            } catch (RuntimeException unbuildable) {
                // A codec library missing from the classpath, for instance: no retry can build this batch.
                throw new CairnException("cannot build the batch for " + batch.topicPartition + ": "
                        + unbuildable.getMessage(), false, unbuildable);
            }
            byTopic.computeIfAbsent(batch.topicPartition.topic(), unused -> new ArrayList<>()).add(
                    new Struct(ProduceRequest.PartitionProduceData.SCHEMA)
                            .set(ProduceRequest.PartitionProduceData.INDEX, batch.topicPartition.partition())
                            .set(ProduceRequest.PartitionProduceData.RECORDS, ByteBufferRecords.of(bytes)));
        }
        List<Struct> topicData = new ArrayList<>();
        for (Map.Entry<String, List<Struct>> entry : byTopic.entrySet()) {
            topicData.add(new Struct(ProduceRequest.TopicProduceData.SCHEMA)
                    .set(ProduceRequest.TopicProduceData.NAME, entry.getKey())
                    .set(ProduceRequest.TopicProduceData.PARTITION_DATA, entry.getValue()));
        }
        return new Struct(ProduceRequest.SCHEMA)
                .set(ProduceRequest.ACKS, config.acks())
                .set(ProduceRequest.TIMEOUT_MS, config.requestTimeoutMs())
                .set(ProduceRequest.TOPIC_DATA, topicData);
    }

    private record PartitionResult(ErrorCode error, long baseOffset, long logAppendTimeMs) {
    }

    private void onProduceResponse(int nodeId, InFlightRequest inFlight, List<ProducerBatch> batches,
                                   Struct response, Throwable error) {
        Map<TopicPartition, PartitionResult> results = response == null ? Map.of() : parseProduce(response);
        CairnException failure = error == null ? null : asCairn(error);
        List<Runnable> completions = new ArrayList<>();
        synchronized (lock) {
            if (inFlight != null) {
                inFlightRequests.remove(inFlight);
            }
            inFlightRequestsByNode.merge(nodeId, -1, Integer::sum);
            for (ProducerBatch batch : batches) {
                if (failure != null) {
                    onBatchFailed(batch, failure, ErrorCode.NETWORK_EXCEPTION, completions);
                    continue;
                }
                PartitionResult result = response == null
                        ? new PartitionResult(ErrorCode.NONE, RecordMetadata.UNKNOWN_OFFSET, -1)
                        : results.getOrDefault(batch.topicPartition,
                                new PartitionResult(ErrorCode.UNKNOWN_SERVER_ERROR, -1, -1));
                if (result.error() == ErrorCode.NONE || result.error() == ErrorCode.DUPLICATE_SEQUENCE_NUMBER) {
                    PartitionState state = partitions.get(batch.topicPartition);
                    state.inFlight.remove(batch);
                    state.acknowledgedProducerId = batch.sendProducerId;
                    state.acknowledgedProducerEpoch = batch.sendProducerEpoch;
                    reservedBytes -= batch.reservedBytes;
                    long offset = result.error() == ErrorCode.NONE ? result.baseOffset() : -1;
                    completions.add(() -> batch.succeed(offset, result.logAppendTimeMs()));
                } else {
                    onBatchFailed(batch, new CairnApiException(result.error(), "produce to " + batch.topicPartition),
                            result.error(), completions);
                }
            }
            if (anyoneWaitsOnResponses()) {
                lock.notifyAll();
            }
        }
        completions.forEach(Runnable::run);
    }

    /**
     * Whether a response must wake the lock's waiters (lock held): a sender with queued batches (a request slot is
     * free now), callers waiting for buffer memory, or a closing sender that exits once drained. Otherwise the
     * sender sleeps on until its next linger deadline: on a busy machine every needless wake-up is a context switch.
     */
    private boolean anyoneWaitsOnResponses() {
        if (memoryWaiters > 0 || closing || closed) {
            return true;
        }
        for (PartitionState state : partitions.values()) {
            if (!state.queued.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private static CairnException asCairn(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof CairnException) {
            return (CairnException) cause;
        }
        return new CairnNetworkException("produce failed: " + cause, cause);
    }

    private static Map<TopicPartition, PartitionResult> parseProduce(Struct response) {
        Map<TopicPartition, PartitionResult> results = new HashMap<>();
        for (Struct topic : response.get(ProduceResponse.RESPONSES)) {
            String name = topic.get(ProduceResponse.TopicProduceResponse.NAME);
            for (Struct partition : topic.get(ProduceResponse.TopicProduceResponse.PARTITION_RESPONSES)) {
                results.put(new TopicPartition(name, partition.get(ProduceResponse.PartitionProduceResponse.INDEX)),
                        new PartitionResult(
                                ErrorCode.forCode(partition.get(ProduceResponse.PartitionProduceResponse.ERROR_CODE)),
                                partition.get(ProduceResponse.PartitionProduceResponse.BASE_OFFSET),
                                partition.get(ProduceResponse.PartitionProduceResponse.LOG_APPEND_TIME_MS)));
            }
        }
        return results;
    }

    /** Requeues a batch that may succeed on a retry, or fails it for good; lock held. */
    private void onBatchFailed(ProducerBatch batch, CairnException cause, ErrorCode code, List<Runnable> completions) {
        PartitionState state = partitions.get(batch.topicPartition);
        state.inFlight.remove(batch);
        boolean sequenceError = code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
                || code == ErrorCode.UNKNOWN_PRODUCER_ID;
        if (code == ErrorCode.NETWORK_EXCEPTION || code == ErrorCode.NOT_LEADER_OR_FOLLOWER
                || code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || code == ErrorCode.LEADER_NOT_AVAILABLE) {
            metadataRefreshWanted = true;
        }
        long now = nowMs();
        boolean inTime = now - batch.createdMs < config.deliveryTimeoutMs();
        if (isTooLarge(code) && batch.recordsCount() > 1 && !closed && inTime && splitAndRequeue(state, batch)) {
            return;
        }
        boolean retriable = cause.isRetriable() || sequenceError;
        if (retriable && !closed && batch.attempts <= config.retries()
                && now - batch.createdMs < config.deliveryTimeoutMs()) {
            if (sequenceError && sentUnderCurrentIdentity(batch) && !hasEarlierOutstanding(state, batch)) {
                // Nothing before this batch is outstanding, so the broker's gap is real: start a new sequence.
                resetProducerId();
            }
            if (config.idempotent() && !sentUnderCurrentIdentity(batch)) {
                batch.baseSequence = -1;
            }
            batch.retryNotBeforeMs = now + backoffMs(batch.attempts);
            retriedBatches++;
            requeue(state, batch);
            return;
        }
        reservedBytes -= batch.reservedBytes;
        if (sentUnderCurrentIdentity(batch)) {
            resetProducerId();
        }
        completions.add(() -> batch.fail(cause));
    }

    /** The broker's answers to a batch bigger than max.message.bytes or segment.bytes. */
    private static boolean isTooLarge(ErrorCode code) {
        return code == ErrorCode.MESSAGE_TOO_LARGE || code == ErrorCode.RECORD_LIST_TOO_LARGE;
    }

    /**
     * Splits a refused batch in two and puts the halves where it was (lock held), as Kafka's producer does when a
     * batch exceeds the topic's max.message.bytes; a half that is still too large is split again, down to single
     * records, and a single record too large fails. False if the batch could not be read back.
     */
    private boolean splitAndRequeue(PartitionState state, ProducerBatch batch) {
        List<ProducerBatch> halves;
        try {
            halves = batch.split(splitDecoder);
        } catch (RuntimeException unreadable) {
            return false;
        }
        for (ProducerBatch half : halves) {
            if (config.idempotent() && !sentUnderCurrentIdentity(half)) {
                half.baseSequence = -1;
            }
            requeue(state, half);
        }
        splitBatches++;
        return true;
    }

    private static boolean hasEarlierOutstanding(PartitionState state, ProducerBatch batch) {
        for (ProducerBatch other : state.inFlight) {
            if (other.precedes(batch)) {
                return true;
            }
        }
        for (ProducerBatch other : state.queued) {
            if (other.precedes(batch) && other.baseSequence >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Puts a batch back in creation order, which is the order its partition must be written in. */
    private static void requeue(PartitionState state, ProducerBatch batch) {
        ArrayDeque<ProducerBatch> reordered = new ArrayDeque<>(state.queued.size() + 1);
        boolean inserted = false;
        for (ProducerBatch queued : state.queued) {
            if (!inserted && batch.precedes(queued)) {
                reordered.addLast(batch);
                inserted = true;
            }
            reordered.addLast(queued);
        }
        if (!inserted) {
            reordered.addLast(batch);
        }
        state.queued.clear();
        state.queued.addAll(reordered);
    }

    /** Whether a batch was last sent under the producer id and epoch in use now; lock held. */
    private boolean sentUnderCurrentIdentity(ProducerBatch batch) {
        return batch.sendProducerId == producerId && batch.sendProducerEpoch == producerEpoch;
    }

    /**
     * Starts a new sequence after a gap (KIP-360): the producer bumps its epoch, and every batch not yet sent is
     * renumbered from 0 under it; the broker accepts a higher epoch that starts at 0. An exhausted epoch
     * (Short.MAX_VALUE) makes the sender fetch a new producer id instead. Without idempotence there are no
     * sequences on the wire and nothing to reset. Lock held.
     */
    private void resetProducerId() {
        if (!config.idempotent() || producerId < 0) {
            return;
        }
        if (producerEpoch < Short.MAX_VALUE) {
            producerEpoch++;
        } else {
            producerId = -1;
            producerEpoch = -1;
        }
        for (PartitionState state : partitions.values()) {
            state.nextSequence = 0;
            for (ProducerBatch queued : state.queued) {
                queued.baseSequence = -1;
            }
        }
    }
}
