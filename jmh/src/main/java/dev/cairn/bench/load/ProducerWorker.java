package dev.cairn.bench.load;

import dev.cairn.client.CairnException;
import dev.cairn.client.CairnProducer;
import dev.cairn.client.ProducerConfig;
import dev.cairn.client.ProducerRecord;
import dev.cairn.client.RecordMetadata;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One producer: its own client, sending from one thread until the end time, either one record at a time
 * (waiting for each acknowledgement) or pipelined through the client's batching. Latency is acknowledgement time
 * minus send time; with a target rate the send time is when the record was due, so a stalled broker shows up
 * as latency instead of as a quietly lower rate (no coordinated omission).
 *
 * <p>In e2e runs each value starts with its send time (System.nanoTime, 8 bytes) for the consumers to read; the
 * tool runs producers and consumers in one process, so the clocks agree.
 */
final class ProducerWorker implements Runnable {
    /** How long a synchronous send, or the final flush, may take before it counts as failed. */
    static final long SEND_WAIT_MS_MAX = 60_000;
    /** Longest single pause while waiting for the next due send; keeps the end time responsive. */
    private static final long PACE_PARK_NS_MAX = TimeUnit.MILLISECONDS.toNanos(100);

    private final LoadSpec spec;
    private final Integer partition;
    private final long warmupEndNs;
    private final long endNs;
    private final LatencyRecorder recorder;
    private final byte[] sharedValue;
    private long lastAckNs;

    ProducerWorker(LoadSpec spec, Integer partition, long warmupEndNs, long endNs, LatencyRecorder recorder) {
        this.spec = spec;
        this.partition = partition;
        this.warmupEndNs = warmupEndNs;
        this.endNs = endNs;
        this.recorder = recorder;
        this.sharedValue = new byte[spec.recordBytes()];
        for (int i = 0; i < sharedValue.length; i++) {
            sharedValue[i] = (byte) ('a' + i % 26);
        }
    }

    static ProducerConfig config(LoadSpec spec, String clientId) {
        return ProducerConfig.builder()
                .bootstrapServers(spec.bootstrap())
                .clientId(clientId)
                .acks(spec.acks())
                .batchSizeBytes(Math.max(spec.batchBytes(), spec.recordBytes() + 1024))
                .lingerMs(spec.sync() ? 0 : spec.lingerMs())
                .set(ProducerConfig.MAX_REQUEST_SIZE, Math.max(1_048_576, spec.recordBytes() + 4096))
                .deliveryTimeoutMs(SEND_WAIT_MS_MAX)
                .build();
    }

    @Override
    public void run() {
        try (CairnProducer producer = CairnProducer.create(config(spec, "cairn-load-producer"))) {
            double rate = spec.producerRate();
            long intervalNs = rate == 0 ? 0 : (long) (1e9 / rate);
            long dueNs = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now - endNs >= 0) {
                    break;
                }
                long stampNs = now;
                if (intervalNs > 0) {
                    if (dueNs - now > 0) {
                        LockSupport.parkNanos(Math.min(dueNs - now, PACE_PARK_NS_MAX));
                        continue;
                    }
                    stampNs = dueNs;
                    dueNs += intervalNs;
                }
                send(producer, stampNs);
            }
            producer.flush(Duration.ofMillis(SEND_WAIT_MS_MAX));
        }
    }

    private void send(CairnProducer producer, long stampNs) {
        byte[] value = sharedValue;
        if (spec.workload() == LoadSpec.Workload.E2E) {
            value = sharedValue.clone();
            ByteBuffer.wrap(value).putLong(0, stampNs);
        }
        boolean counted = stampNs - warmupEndNs >= 0;
        CompletableFuture<RecordMetadata> future;
        try {
            future = producer.send(new ProducerRecord(spec.topic(), partition, null, null, value, List.of()));
        } catch (CairnException failed) {
            recorder.onError();
            return;
        }
        if (spec.sync()) {
            try {
                future.get(SEND_WAIT_MS_MAX, TimeUnit.MILLISECONDS);
                onAcked(stampNs, counted);
            } catch (ExecutionException | TimeoutException failed) {
                recorder.onError();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while sending", interrupted);
            }
        } else {
            future.whenComplete((metadata, error) -> {
                if (error == null) {
                    onAcked(stampNs, counted);
                } else {
                    recorder.onError();
                }
            });
        }
    }

    private void onAcked(long stampNs, boolean counted) {
        long now = System.nanoTime();
        if (counted) {
            recorder.onRecord(now - stampNs, spec.recordBytes());
        }
        synchronized (this) {
            lastAckNs = Math.max(lastAckNs, now);
        }
    }

    /** When the last acknowledgement arrived (System.nanoTime), or 0 if none did. */
    synchronized long lastAckNs() {
        return lastAckNs;
    }
}
