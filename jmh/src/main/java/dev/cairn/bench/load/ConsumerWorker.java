package dev.cairn.bench.load;

import dev.cairn.client.CairnConsumer;
import dev.cairn.client.CairnException;
import dev.cairn.client.ConsumerConfig;
import dev.cairn.client.ConsumerRecord;
import dev.cairn.client.TopicPartition;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One consumer: its own client, assigned some partitions, reading them from offset 0 until it reaches the given
 * end offsets (consume phase) or until told to stop (e2e), and never past its deadline.
 *
 * <p>Consume phase latency: the duration of each poll that returned records. E2E latency: receive time minus the
 * send time the producer stamped into the value.
 */
final class ConsumerWorker implements Runnable {
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    private final LoadSpec spec;
    private final List<TopicPartition> partitions;
    private final Map<TopicPartition, Long> endOffsets;
    private final BooleanSupplier stop;
    private final long warmupEndNs;
    private final long deadlineNs;
    private final LatencyRecorder recorder;
    private volatile long lastRecordNs;

    /**
     * @param endOffsets where to stop per partition (consume phase), or null to read until {@code stop} (e2e)
     */
    ConsumerWorker(LoadSpec spec, List<TopicPartition> partitions, Map<TopicPartition, Long> endOffsets,
            BooleanSupplier stop, long warmupEndNs, long deadlineNs, LatencyRecorder recorder) {
        this.spec = spec;
        this.partitions = List.copyOf(partitions);
        this.endOffsets = endOffsets;
        this.stop = stop;
        this.warmupEndNs = warmupEndNs;
        this.deadlineNs = deadlineNs;
        this.recorder = recorder;
    }

    static ConsumerConfig config(LoadSpec spec) {
        return ConsumerConfig.builder()
                .bootstrapServers(spec.bootstrap())
                .clientId("cairn-load-consumer")
                .offsetReset(ConsumerConfig.OffsetReset.EARLIEST)
                .partitionFetchBytesMax(Math.max(1_048_576, spec.recordBytes() + 4096))
                .fetchMaxWaitMs(100)
                .build();
    }

    @Override
    public void run() {
        try (CairnConsumer consumer = CairnConsumer.create(config(spec))) {
            consumer.assign(partitions);
            for (TopicPartition partition : partitions) {
                consumer.seek(partition, 0);
            }
            while (System.nanoTime() - deadlineNs < 0 && !done(consumer)) {
                long before = System.nanoTime();
                List<ConsumerRecord> records;
                try {
                    records = consumer.poll(POLL_TIMEOUT);
                } catch (CairnException failed) {
                    recorder.onError();
                    continue;
                }
                long now = System.nanoTime();
                if (records.isEmpty()) {
                    continue;
                }
                lastRecordNs = now;
                if (endOffsets != null) {
                    recorder.onLatency(now - before);
                    long bytes = 0;
                    for (ConsumerRecord record : records) {
                        bytes += record.value() == null ? 0 : record.value().length;
                    }
                    recorder.onRecords(records.size(), bytes);
                } else {
                    for (ConsumerRecord record : records) {
                        long stampNs = ByteBuffer.wrap(record.value()).getLong(0);
                        if (stampNs - warmupEndNs >= 0) {
                            recorder.onRecord(now - stampNs, record.value().length);
                        }
                    }
                }
            }
        }
    }

    private boolean done(CairnConsumer consumer) {
        if (endOffsets == null) {
            return stop.getAsBoolean();
        }
        for (TopicPartition partition : partitions) {
            if (consumer.position(partition) < endOffsets.getOrDefault(partition, 0L)) {
                return false;
            }
        }
        return true;
    }

    /** When the last non-empty poll returned (System.nanoTime), or 0 if none did. */
    long lastRecordNs() {
        return lastRecordNs;
    }
}
