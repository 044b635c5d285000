package dev.cairn.client.internal;

import dev.cairn.client.CairnException;
import dev.cairn.client.ConsumerRecord;
import dev.cairn.client.RecordMetadata;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The records collected for one partition that go to the broker as one RecordBatch. Open batches take appends;
 * once drained for sending a batch is closed and its bytes are built once per producer id (a retry resends the
 * same bytes, so the broker can recognise the duplicate by its sequence numbers). Guarded by the engine's lock.
 */
final class ProducerBatch {
    private static final int TIMESTAMPS_INITIAL = 16;

    final TopicPartition topicPartition;
    final long createdMs;
    final long reservedBytes;
    /** Creation order within the partition, which is the order the partition must be written in. */
    final long batchNumber;
    /**
     * For a batch split off a larger one (same batchNumber), the index its first record had in the batch as created;
     * 0 otherwise. (batchNumber, splitIndex) orders the partition's batches.
     */
    final int splitIndex;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final RecordBatchBuilder builder;
    private final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    private long[] timestamps = new long[TIMESTAMPS_INITIAL];
    boolean closed;
    /** The first record's position in the partition's sequence, or -1 before the batch is first drained. */
    int baseSequence = -1;
    long builtProducerId = Long.MIN_VALUE;
    short builtProducerEpoch = Short.MIN_VALUE;
    /** The producer id and epoch current when the batch was last drained; the batch is built for them. */
    long sendProducerId = -1;
    short sendProducerEpoch = -1;
    ByteBuffer built;
    int attempts;
    long retryNotBeforeMs;

    ProducerBatch(TopicPartition topicPartition, long batchNumber, RecordBatchBuilder builder, long createdMs,
                  long reservedBytes) {
        this(topicPartition, batchNumber, 0, builder, createdMs, reservedBytes);
    }

    private ProducerBatch(TopicPartition topicPartition, long batchNumber, int splitIndex, RecordBatchBuilder builder,
                          long createdMs, long reservedBytes) {
        this.topicPartition = topicPartition;
        this.batchNumber = batchNumber;
        this.splitIndex = splitIndex;
        this.builder = builder;
        this.createdMs = createdMs;
        this.reservedBytes = reservedBytes;
    }

    /** Whether this batch must be written before {@code other} (both of the same partition). */
    boolean precedes(ProducerBatch other) {
        return batchNumber != other.batchNumber ? batchNumber < other.batchNumber : splitIndex < other.splitIndex;
    }

    /**
     * Splits a batch the broker refused as too large (MESSAGE_TOO_LARGE) into two halves by record count, as Kafka's
     * producer splits such batches. The halves keep the records' futures, their order, the creation time (the
     * delivery timeout still runs from it) and, if the batch was sequenced, consecutive sequences from its base:
     * the broker refused the whole batch, so those sequences are still unused. This batch's {@code done} completes
     * when both halves are done. Needs at least two records; the records are read back from the built bytes.
     */
    List<ProducerBatch> split(RecordDecoder decoder) {
        if (recordsCount() < 2) {
            throw new IllegalStateException("a batch of one record cannot be split");
        }
        ByteBuffer bytes = built != null ? built.duplicate() : builder.build();
        List<ConsumerRecord> records = decoder.decode(topicPartition, bytes, 0).records();
        if (records.size() != recordsCount()) {
            throw new IllegalStateException("read back " + records.size() + " of " + recordsCount() + " records");
        }
        int firstHalf = records.size() / 2;
        ProducerBatch head = half(records, 0, firstHalf, reservedBytes / 2);
        ProducerBatch tail = half(records, firstHalf, records.size(), reservedBytes - reservedBytes / 2);
        if (baseSequence >= 0) {
            head.baseSequence = baseSequence;
            tail.baseSequence = incrementSequence(baseSequence, firstHalf);
        }
        CompletableFuture.allOf(head.done, tail.done).whenComplete((ignored, impossible) -> done.complete(null));
        return List.of(head, tail);
    }

    private ProducerBatch half(List<ConsumerRecord> records, int from, int to, long reserve) {
        ProducerBatch half = new ProducerBatch(topicPartition, batchNumber, splitIndex + from,
                new RecordBatchBuilder(builder.compressionType()), createdMs, reserve);
        half.closed = true;
        half.sendProducerId = sendProducerId;
        half.sendProducerEpoch = sendProducerEpoch;
        half.attempts = attempts;
        for (int i = from; i < to; i++) {
            ConsumerRecord record = records.get(i);
            half.builder.append(timestamps[i], record.key(), record.value(), WireHeaders.of(record.headers()));
            half.timestamps = growFor(half.timestamps, half.futures.size());
            half.timestamps[half.futures.size()] = timestamps[i];
            half.futures.add(futures.get(i));
        }
        return half;
    }

    private static long[] growFor(long[] array, int index) {
        return index < array.length ? array : Arrays.copyOf(array, array.length * 2);
    }

    boolean hasRoomFor(long timestampMs, byte[] key, byte[] value, RecordHeader[] headers, int batchBytesMax) {
        return !closed && builder.hasRoomFor(timestampMs, key, value, headers, batchBytesMax);
    }

    CompletableFuture<RecordMetadata> append(long timestampMs, byte[] key, byte[] value, RecordHeader[] headers) {
        builder.append(timestampMs, key, value, headers);
        timestamps = growFor(timestamps, futures.size());
        timestamps[futures.size()] = timestampMs;
        CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
        futures.add(future);
        return future;
    }

    int recordsCount() {
        return futures.size();
    }

    int lastSequence() {
        return incrementSequence(baseSequence, recordsCount() - 1);
    }

    /**
     * Adds to a sequence number the way Kafka does ({@code DefaultRecordBatch.incrementSequence}): sequences wrap
     * from Integer.MAX_VALUE to 0, so they never turn negative (negative means "no sequence").
     */
    static int incrementSequence(int sequence, int increment) {
        if (sequence > Integer.MAX_VALUE - increment) {
            return increment - (Integer.MAX_VALUE - sequence) - 1;
        }
        return sequence + increment;
    }

    int estimatedSizeInBytes() {
        return builder.estimatedSizeInBytes();
    }

    /** Builds the wire bytes for this producer id and epoch, once; a closed batch's records never change. */
    ByteBuffer build(long producerId, short producerEpoch, boolean idempotent) {
        if (built == null || builtProducerId != producerId || builtProducerEpoch != producerEpoch) {
            if (idempotent) {
                builder.producerState(producerId, producerEpoch, baseSequence);
            }
            built = builder.build();
            builtProducerId = producerId;
            builtProducerEpoch = producerEpoch;
        }
        return built.duplicate();
    }

    /** Completes every record's future; logAppendTimeMs is -1 unless the topic uses LogAppendTime. */
    void succeed(long baseOffset, long logAppendTimeMs) {
        String topic = topicPartition.topic();
        int partition = topicPartition.partition();
        for (int i = 0; i < futures.size(); i++) {
            long offset = baseOffset < 0 ? RecordMetadata.UNKNOWN_OFFSET : baseOffset + i;
            long timestamp = logAppendTimeMs >= 0 ? logAppendTimeMs : timestamps[i];
            futures.get(i).complete(new RecordMetadata(topic, partition, offset, timestamp));
        }
        done.complete(null);
    }

    void fail(CairnException cause) {
        for (CompletableFuture<RecordMetadata> future : futures) {
            future.completeExceptionally(cause);
        }
        done.complete(null);
    }
}
