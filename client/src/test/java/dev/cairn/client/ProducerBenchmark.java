package dev.cairn.client;

import dev.cairn.broker.BrokerFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Not a test: Cairn's producer beside kafka-clients' producer against the same broker, same settings (idempotent,
 * acks=all, linger.ms=5, batch.size=16384, no compression), in alternating rounds so that machine noise hits both.
 * Reports records/s and the send latency (send call to acknowledgement, HdrHistogram) p50/p99 per round.
 * Arguments: records per round (default 500000), value bytes (default 100), rounds (default 3), and optionally a
 * bootstrap address of a running broker (e.g. Apache Kafka) instead of an in-process Cairn broker.
 */
public final class ProducerBenchmark {
    private static final int PARTITIONS = 3;
    private static final long FLUSH_TIMEOUT_MS = 300_000;
    /** Latencies above this (in microseconds) are clamped; a send slower than 5 minutes has failed anyway. */
    private static final long LATENCY_US_MAX = TimeUnit.MINUTES.toMicros(5);

    private ProducerBenchmark() {
    }

    /** One producer's round: throughput and the latency histogram in microseconds. */
    private record Result(double recordsPerSecond, Histogram latencyUs) {
        String describe() {
            return String.format("%,10.0f rec/s  p50 %7.1f ms  p99 %7.1f ms", recordsPerSecond,
                    latencyUs.getValueAtPercentile(50) / 1000.0, latencyUs.getValueAtPercentile(99) / 1000.0);
        }
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
        int valueBytes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        byte[] value = new byte[valueBytes];
        if (args.length > 3) {
            run(args[3], "external", records, value, rounds);
            return;
        }
        Path dataDir = Files.createTempDirectory("cairn-bench");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("num.partitions",
                Integer.toString(PARTITIONS)))) {
            run(broker.bootstrap(), "in-process Cairn", records, value, rounds);
        }
    }

    private static void run(String bootstrap, String brokerName, int records, byte[] value, int rounds)
            throws Exception {
        System.out.printf("broker: %s at %s; %d records of %d bytes per round%n", brokerName, bootstrap, records,
                value.length);
        for (int round = 1; round <= rounds; round++) {
            Result kafka = kafka(bootstrap, "bench-kafka-" + round, records, value);
            Result cairn = cairn(bootstrap, "bench-cairn-" + round, records, value);
            System.out.printf("round %d  kafka-clients %s%n", round, kafka.describe());
            System.out.printf("round %d  cairn         %s   (throughput cairn/kafka = %.2f, p99 cairn/kafka = %.2f)%n",
                    round, cairn.describe(), cairn.recordsPerSecond() / kafka.recordsPerSecond(),
                    (double) cairn.latencyUs().getValueAtPercentile(99) / kafka.latencyUs().getValueAtPercentile(99));
        }
    }

    private static void record(Histogram histogram, long sentNs) {
        histogram.recordValue(Math.min(LATENCY_US_MAX, (System.nanoTime() - sentNs) / 1000));
    }

    private static Result kafka(String bootstrap, String topic, int records, byte[] value) throws Exception {
        Histogram latency = new ConcurrentHistogram(LATENCY_US_MAX, 3);
        try (KafkaProducer<byte[], byte[]> producer = KafkaOracle.producer(bootstrap, Map.of("acks", "all",
                "linger.ms", 5, "batch.size", 16_384, "enable.idempotence", true))) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, p, null, value)).get();
            }
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                long sentNs = System.nanoTime();
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, null, value),
                        (metadata, error) -> record(latency, sentNs));
            }
            producer.flush();
            return new Result(records / ((System.nanoTime() - start) / 1e9), latency);
        }
    }

    private static Result cairn(String bootstrap, String topic, int records, byte[] value) throws Exception {
        Histogram latency = new ConcurrentHistogram(LATENCY_US_MAX, 3);
        try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder().bootstrapServers(bootstrap)
                .acks("all").lingerMs(5).batchSizeBytes(16_384).idempotence(true).build())) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord(topic, p, null, null, value, List.of())).get(60, TimeUnit.SECONDS);
            }
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                long sentNs = System.nanoTime();
                producer.send(new ProducerRecord(topic, null, value))
                        .whenComplete((metadata, error) -> record(latency, sentNs));
            }
            producer.flush(Duration.ofMillis(FLUSH_TIMEOUT_MS));
            return new Result(records / ((System.nanoTime() - start) / 1e9), latency);
        }
    }
}
