package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Log compaction on three brokers at RF=3 (issue 19, acceptance 4), with kafka-clients 4.4: records over 10,000 keys
 * (200,000 by default; {@code -Dcairn.compaction.records=1000000} for the figure), then tombstones for a
 * tenth of the keys. Once compacted, a consumer reading from offset 0 sees exactly the latest value of each live
 * key, at the offset the producer was given for it, no record of a deleted key (the tombstones are gone after
 * delete.retention.ms), and the three replicas hold byte-identical segment files, one of them having been stopped
 * while the others compacted and restarted afterwards.
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class CompactionIT {
    private static final String TOPIC = "compacted";
    private static final int KEYS = 10_000;
    private static final int DELETED_KEYS = KEYS / 10;
    private static final int RECORDS = Integer.getInteger("cairn.compaction.records", 200_000);
    private static final long DELETE_RETENTION_MS = 3_000;
    private static final long WAIT_SECONDS = 180;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theLatestValuePerKeySurvivesAtItsOffsetOnEveryReplica() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("log.cleaner.backoff.ms", "500",
                "auto.leader.rebalance.enable", "false", "auto.create.topics.enable", "false"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("cleanup.policy", "compact",
                    "segment.bytes", Integer.toString(256 << 10), "delete.retention.ms",
                    Long.toString(DELETE_RETENTION_MS), "min.cleanable.dirty.ratio", "0.2"))))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        Map<String, Long> latestOffset = new ConcurrentHashMap<>();
        Map<String, String> latestValue = new HashMap<>();
        long started = System.nanoTime();
        try (KafkaProducer<String, String> producer = producer()) {
            AtomicReference<Exception> failure = new AtomicReference<>();
            for (int i = 0; i < RECORDS; i++) {
                String key = "key-" + (i % KEYS);
                String value = "value-" + i + "-" + "x".repeat(60);
                latestValue.put(key, value);
                send(producer, key, value, latestOffset, failure);
            }
            for (int k = 0; k < DELETED_KEYS; k++) {
                latestValue.remove("key-" + k);
                send(producer, "key-" + k, null, latestOffset, failure);
            }
            producer.flush();
            assertEquals(null, failure.get(), "every send acknowledged");
            System.out.printf("CompactionIT: %d records and %d tombstones produced in %d ms%n", RECORDS,
                    DELETED_KEYS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            // Broker 3 stops while the others compact, and catches up afterwards: by replaying the passes from its
            // Raft log, or from a snapshot of a compacted log.
            cluster.stop(3);
            // The active segment is never compacted: once the tombstones are older than delete.retention.ms, roll
            // them out of it with other keys' records.
            TimeUnit.MILLISECONDS.sleep(DELETE_RETENTION_MS + 500);
            java.util.Random random = new java.util.Random(42);
            for (int i = 0; i < 3_000; i++) {
                String key = "filler-" + (i % 100);
                // Incompressible, so that they fill segments whatever the codec.
                String value = "filler-" + i + "-" + random.ints(300, 'a', 'z' + 1)
                        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append);
                latestValue.put(key, value);
                send(producer, key, value, latestOffset, failure);
            }
            producer.flush();
            assertEquals(null, failure.get(), "every filler acknowledged");
        }
        long end = latestOffset.values().stream().mapToLong(Long::longValue).max().orElseThrow() + 1;
        cluster.restart(3);

        awaitTrue(() -> compacted(readFromStart(end), latestValue, latestOffset),
                () -> "the consumer reads exactly the latest value of each live key");
        awaitTrue(this::sameSegmentFilesOnEveryReplica, () -> "byte-identical segments: " + segmentCrcs(1) + " "
                + segmentCrcs(2) + " " + segmentCrcs(3));
        long sizeBytes = segmentCrcs(1).size();
        System.out.printf("CompactionIT: compacted, %d segment files on each replica, log end %d%n", sizeBytes, end);
    }

    private static void send(KafkaProducer<String, String> producer, String key, String value,
            Map<String, Long> latestOffset, AtomicReference<Exception> failure) {
        producer.send(new ProducerRecord<>(TOPIC, 0, key, value), (metadata, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            } else {
                latestOffset.merge(key, metadata.offset(), Math::max);
            }
        });
    }

    /**
     * Whether the log read from offset 0 holds exactly the latest value of each live key at its offset. A record
     * below the active segment that is not the latest of its key means compaction has not reached it yet.
     */
    private static boolean compacted(TreeMap<Long, ConsumerRecord<String, String>> log,
            Map<String, String> latestValue, Map<String, Long> latestOffset) {
        Map<String, ConsumerRecord<String, String>> seen = new HashMap<>();
        for (ConsumerRecord<String, String> record : log.values()) {
            if (record.key().startsWith("filler-")) {
                continue;
            }
            if (seen.put(record.key(), record) != null || record.value() == null) {
                return false;
            }
        }
        long expectedKeys = latestValue.keySet().stream().filter(k -> !k.startsWith("filler-")).count();
        if (seen.size() != expectedKeys) {
            return false;
        }
        for (ConsumerRecord<String, String> record : seen.values()) {
            assertEquals(latestValue.get(record.key()), record.value(), record.key());
            assertEquals(latestOffset.get(record.key()), record.offset(), "offsets never change: " + record.key());
        }
        return true;
    }

    private TreeMap<Long, ConsumerRecord<String, String>> readFromStart(long end) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TreeMap<Long, ConsumerRecord<String, String>> records = new TreeMap<>();
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.position(partition, Duration.ofSeconds(30)) < end) {
                assertTrue(System.nanoTime() < deadline, "read up to " + consumer.position(partition) + " of " + end);
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    records.put(record.offset(), record);
                }
            }
        }
        return records;
    }

    private KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        return new KafkaProducer<>(props);
    }

    /** Each segment file of broker {@code node}'s replica, with its CRC-32C. */
    private Map<String, Long> segmentCrcs(int node) {
        Path partition = cluster.config(node).dataDir().resolve("logs").resolve(TOPIC + "-0");
        Map<String, Long> crcs = new TreeMap<>();
        try (Stream<Path> files = Files.list(partition)) {
            for (Path file : files.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                CRC32C crc = new CRC32C();
                crc.update(Files.readAllBytes(file));
                crcs.put(file.getFileName().toString(), crc.getValue());
            }
        } catch (IOException e) {
            return Map.of();
        }
        return crcs;
    }

    private boolean sameSegmentFilesOnEveryReplica() {
        Map<String, Long> first = segmentCrcs(1);
        return first.size() > 1 && first.equals(segmentCrcs(2)) && first.equals(segmentCrcs(3));
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(Condition condition, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.holds()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(1000);
        }
    }
}
