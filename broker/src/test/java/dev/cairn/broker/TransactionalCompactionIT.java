package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.ControlBatch;
import dev.cairn.protocol.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * A compacted topic written by Kafka's transactional producer (a Kafka Streams changelog written with
 * exactly_once_v2 looks like this), on three brokers at RF=3 with kafka-clients 4.4 (issue 20): every third
 * transaction is aborted, the last one over every key included. Once compacted, a read_uncommitted consumer reading
 * from offset 0 sees no aborted value and exactly the latest committed value of each key (an aborted value never wins
 * over a committed one, whatever its offset), and so does a read_committed one; the abort markers go once their delete
 * horizon has passed, and the three replicas hold byte-identical segment files.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TransactionalCompactionIT {
    private static final String TOPIC = "txn-changelog";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final int KEYS = 20;
    private static final int ROUNDS = 30;
    private static final long DELETE_RETENTION_MS = 2_000;
    private static final long WAIT_SECONDS = 150;
    private static final String PADDING = "-" + "p".repeat(200);

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
    void compactionKeepsTheLatestCommittedValueOfEachKeyAndNoAbortedOne() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("log.cleaner.backoff.ms", "500",
                "auto.leader.rebalance.enable", "false", "auto.create.topics.enable", "false"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("cleanup.policy", "compact",
                    "segment.bytes", Integer.toString(16 << 10), "delete.retention.ms",
                    Long.toString(DELETE_RETENTION_MS), "min.cleanable.dirty.ratio", "0.01"))))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        Map<String, String> latestCommitted = new HashMap<>();
        try (KafkaProducer<String, String> producer = producer()) {
            producer.initTransactions();
            for (int round = 0; round < ROUNDS; round++) {
                boolean abort = round % 3 == 2;
                producer.beginTransaction();
                Map<String, String> written = new HashMap<>();
                for (int k = 0; k < KEYS; k++) {
                    String value = (abort ? "aborted-" : "committed-") + round + "-" + k;
                    producer.send(new ProducerRecord<>(TOPIC, 0, "key-" + k, value + PADDING));
                    written.put("key-" + k, value);
                }
                if (abort) {
                    // A key only aborted transactions ever wrote.
                    producer.send(new ProducerRecord<>(TOPIC, 0, "only-aborted-" + round, "aborted" + PADDING));
                    // In the log before the abort: an abort drops the records the producer has not sent yet.
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    latestCommitted.putAll(written);
                }
            }
            // The active segment is never compacted: roll the keys' records out of it with other committed records.
            for (int round = 0; round < 12; round++) {
                producer.beginTransaction();
                for (int f = 0; f < KEYS; f++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, "filler-" + f % 5, "filler-" + round + PADDING));
                }
                producer.commitTransaction();
            }
        }
        long end = endOffset();
        assertTrue(end > (long) ROUNDS * (KEYS + 1), "the aborted records are in the log too: " + end);

        for (String isolation : List.of("read_uncommitted", "read_committed")) {
            awaitTrue(() -> compacted(readFromStart(isolation, end), latestCommitted),
                    () -> isolation + " reads exactly the latest committed value of each key: "
                            + values(readFromStart(isolation, end)));
        }
        awaitTrue(() -> abortMarkersLeft(1) == 0 && abortMarkersLeft(2) == 0 && abortMarkersLeft(3) == 0,
                () -> "abort markers gone after their horizon: " + abortMarkersLeft(1) + " " + abortMarkersLeft(2)
                        + " " + abortMarkersLeft(3));
        awaitTrue(() -> segmentCrcs(1).size() > 1 && segmentCrcs(1).equals(segmentCrcs(2))
                && segmentCrcs(1).equals(segmentCrcs(3)),
                () -> "byte-identical segments: " + segmentCrcs(1) + " " + segmentCrcs(2) + " " + segmentCrcs(3));
        // After the markers went, the log still reads the same.
        assertTrue(compacted(readFromStart("read_uncommitted", end), latestCommitted));
        assertTrue(compacted(readFromStart("read_committed", end), latestCommitted));
    }

    /**
     * Whether the keyed records hold exactly the latest committed value of each key and nothing aborted (before
     * compaction, a read_uncommitted reader sees aborted records). Filler records are left out (the latest of them
     * may still sit in the active segment).
     */
    private static boolean compacted(TreeMap<Long, ConsumerRecord<String, String>> log,
            Map<String, String> latestCommitted) {
        Map<String, String> seen = new HashMap<>();
        for (ConsumerRecord<String, String> record : log.values()) {
            if (record.value().startsWith("aborted")) {
                return false;
            }
            if (record.key().startsWith("filler-")) {
                continue;
            }
            if (seen.put(record.key(), strip(record.value())) != null) {
                return false;
            }
        }
        return seen.equals(latestCommitted);
    }

    private static String strip(String value) {
        return value.endsWith(PADDING) ? value.substring(0, value.length() - PADDING.length()) : value;
    }

    private static Map<String, String> values(TreeMap<Long, ConsumerRecord<String, String>> log) {
        Map<String, String> values = new TreeMap<>();
        log.values().forEach(record -> values.merge(record.key(), strip(record.value()), (a, b) -> a + "," + b));
        return values;
    }

    private long endOffset() {
        try (KafkaConsumer<String, String> consumer = consumer("read_uncommitted")) {
            return consumer.endOffsets(List.of(PARTITION)).get(PARTITION);
        }
    }

    private TreeMap<Long, ConsumerRecord<String, String>> readFromStart(String isolation, long end) {
        TreeMap<Long, ConsumerRecord<String, String>> records = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            consumer.assign(List.of(PARTITION));
            consumer.seekToBeginning(List.of(PARTITION));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.position(PARTITION, Duration.ofSeconds(30)) < end) {
                assertTrue(System.nanoTime() < deadline, "read up to " + consumer.position(PARTITION) + " of " + end);
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    records.put(record.offset(), record);
                }
            }
        }
        return records;
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props);
    }

    private KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "changelog-app");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(props);
    }

    /** The partition's segment files on broker {@code node}, by name, oldest first. */
    private List<Path> segmentFiles(int node) {
        Path partition = cluster.config(node).dataDir().resolve("logs").resolve(TOPIC + "-0");
        try (Stream<Path> files = Files.list(partition)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Abort markers that still hold their control record in broker {@code node}'s inactive segments (-1: unread). */
    private long abortMarkersLeft(int node) {
        List<Path> files = segmentFiles(node);
        long left = 0;
        for (Path file : files.subList(0, Math.max(0, files.size() - 1))) {
            ByteBuffer bytes;
            try {
                bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            } catch (IOException e) {
                return -1;
            }
            int position = 0;
            while (position < bytes.limit()) {
                RecordBatch batch = new RecordBatch().wrap(bytes, position);
                if (batch.isControl() && batch.recordsCount() > 0 && ControlBatch.type(batch) == ControlBatch.ABORT) {
                    left++;
                }
                position += batch.sizeInBytes();
            }
        }
        return left;
    }

    /** Each segment file of broker {@code node}'s replica, with its CRC-32C. */
    private Map<String, Long> segmentCrcs(int node) {
        Map<String, Long> crcs = new TreeMap<>();
        try {
            for (Path file : segmentFiles(node)) {
                CRC32C crc = new CRC32C();
                crc.update(Files.readAllBytes(file));
                crcs.put(file.getFileName().toString(), crc.getValue());
            }
        } catch (IOException e) {
            return Map.of();
        }
        return crcs;
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(Condition condition, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.holds()) {
            assertTrue(System.nanoTime() < deadline, () -> "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(1000);
        }
    }
}
