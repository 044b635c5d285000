package dev.cairn.client;

import dev.cairn.broker.BrokerFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Not a test: a quick throughput comparison of Cairn's producer and kafka-clients' producer against the same
 * in-process Cairn broker, same settings (idempotent, acks=all, linger.ms=5, batch.size=16384, no compression),
 * alternating rounds so that machine noise hits both. Arguments: records per round (default 500000), value bytes
 * (default 100), rounds (default 3).
 */
public final class ProducerBenchmark {
    private static final int PARTITIONS = 3;
    private static final long FLUSH_TIMEOUT_MS = 300_000;

    private ProducerBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
        int valueBytes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        byte[] value = new byte[valueBytes];
        Path dataDir = Files.createTempDirectory("cairn-bench");
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("num.partitions",
                Integer.toString(PARTITIONS)))) {
            for (int round = 1; round <= rounds; round++) {
                double kafka = kafka(broker.bootstrap(), "bench-kafka-" + round, records, value);
                double cairn = cairn(broker.bootstrap(), "bench-cairn-" + round, records, value);
                System.out.printf("round %d: %d records of %d bytes: kafka-clients %.0f records/s, cairn %.0f "
                        + "records/s (cairn/kafka = %.2f)%n", round, records, valueBytes, kafka, cairn, cairn / kafka);
            }
        }
    }

    private static double kafka(String bootstrap, String topic, int records, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = KafkaOracle.producer(bootstrap, Map.of("acks", "all",
                "linger.ms", 5, "batch.size", 16_384, "enable.idempotence", true))) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, p, null, value)).get();
            }
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, null, value));
            }
            producer.flush();
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static double cairn(String bootstrap, String topic, int records, byte[] value) throws Exception {
        try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder().bootstrapServers(bootstrap)
                .acks("all").lingerMs(5).batchSizeBytes(16_384).idempotence(true).build())) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord(topic, p, null, null, value, List.of())).get(60, TimeUnit.SECONDS);
            }
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord(topic, null, value));
            }
            producer.flush(Duration.ofMillis(FLUSH_TIMEOUT_MS));
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }
}
