package dev.cairn.client;

import dev.cairn.client.internal.ClusterClient;
import dev.cairn.client.internal.ProducerEngine;
import dev.cairn.client.internal.WireHeaders;
import dev.cairn.protocol.ErrorCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Sends records to Cairn (or any Kafka-protocol broker) asynchronously. Thread-safe: many threads may call
 * {@link #send} at once.
 *
 * <pre>
 *   try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
 *           .bootstrapServers("localhost:9092").build())) {
 *       producer.send(new ProducerRecord("events", key, value))
 *               .whenComplete((metadata, error) -&gt; ...);
 *   }
 * </pre>
 *
 * <p>Records are batched per partition (batch.size, linger.ms) and sent by one background thread; records of one
 * partition are written in the order {@code send} was called. By default the producer is idempotent with acks=all,
 * so retries after timeouts or dropped connections never duplicate a record. The returned future fails with a
 * {@link CairnException} whose {@link CairnException#isRetriable()} says whether sending again may help.
 *
 * <p>Futures complete on the client's network thread (as Kafka's callbacks run on its I/O thread): callbacks must
 * be quick and must not block, and in particular must not wait for buffer memory by calling {@link #send}.
 */
public final class CairnProducer implements AutoCloseable {
    private final ProducerConfig config;
    private final ProducerEngine engine;

    private CairnProducer(ProducerConfig config) {
        this.config = config;
        ClusterClient cluster = new ClusterClient(config.bootstrapServers(), config.clientId(),
                config.requestTimeoutMs(), System::currentTimeMillis);
        this.engine = new ProducerEngine(config, cluster);
    }

    public static CairnProducer create(ProducerConfig config) {
        return new CairnProducer(config);
    }

    /**
     * Queues a record and returns a future of where it landed. Blocks up to max.block.ms for the topic's metadata
     * and for buffer memory, then throws {@link CairnTimeoutException}.
     */
    public CompletableFuture<RecordMetadata> send(ProducerRecord record) {
        long deadlineMs = deadline(config.maxBlockMs());
        int partitionCount = engine.partitionCount(record.topic(), deadlineMs);
        int partition;
        int stickyPartitionCount = 0;
        if (record.partition() != null) {
            partition = record.partition();
            if (partition >= partitionCount) {
                throw new CairnApiException(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "partition " + partition + " of topic " + record.topic() + " with " + partitionCount
                                + " partitions");
            }
        } else {
            partition = engine.choosePartition(record.topic(), record.key(), partitionCount);
            stickyPartitionCount = record.key() == null ? partitionCount : 0;
        }
        long timestampMs = record.timestampMs() != null ? record.timestampMs() : System.currentTimeMillis();
        return engine.append(new TopicPartition(record.topic(), partition), timestampMs, record.key(),
                record.value(), WireHeaders.of(record.headers()), deadlineMs, stickyPartitionCount);
    }

    private static long deadline(long timeoutMs) {
        long now = System.currentTimeMillis();
        return timeoutMs > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + timeoutMs;
    }

    /** Sends everything queued now and waits until it is acknowledged or failed, up to the timeout. */
    public void flush(Duration timeout) {
        engine.flush(timeout.toMillis());
    }

    /** Sends what is queued, waiting up to the timeout; records still unsent then fail. */
    public void close(Duration timeout) {
        engine.close(timeout.toMillis());
    }

    /** Closes, waiting as long as it takes for queued records (bounded by their delivery timeout). */
    @Override
    public void close() {
        engine.close(config.deliveryTimeoutMs());
    }

    /** Test hook: how many batches were sent again after a retriable failure. */
    long retriedBatchesForTesting() {
        return engine.retriedBatches();
    }

    /** Test hook: how many batches were split because the broker refused them as too large. */
    long splitBatchesForTesting() {
        return engine.splitBatches();
    }

    /**
     * Test hook: once a request is in flight (waiting up to the timeout), closes the producer's sockets as a
     * network failure would, so that its batches are retried. False if nothing was in flight in time.
     */
    boolean dropConnectionsWhileInFlightForTesting(Duration timeout) {
        return engine.dropConnectionsWhileInFlight(timeout.toMillis());
    }
}
