package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 during a continuous acks=all produce, then restart on the same data: every acknowledged record is
 * there exactly once and offsets are dense. (Records the producer did not see acknowledged may or may not be
 * there; none may appear twice.)
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CrashRecoveryIT {
    private static final String TOPIC = "crash";
    private static final int PARTITIONS = 2;

    @TempDir
    Path dir;

    @Test
    void acknowledgedRecordsSurviveKillDashNine() throws Exception {
        int kafkaPort = BrokerFixture.freePort();
        Map<String, String> settings = Map.of("listeners", "127.0.0.1:" + kafkaPort,
                "raft.listener", "127.0.0.1:" + BrokerFixture.freePort(), "log.dirs", dir.resolve("data").toString(),
                "num.partitions", Integer.toString(PARTITIONS));
        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        try (BrokerProcess broker = new BrokerProcess(settings, dir.resolve("broker.log"))) {
            broker.start();
            AtomicBoolean stop = new AtomicBoolean();
            Thread producerThread = new Thread(() -> produceUntilStopped(kafkaPort, stop, acknowledged));
            producerThread.start();
            waitFor(() -> acknowledged.size() >= 20_000, 120);
            Map<TopicPartition, Long> committed = commitOffsets(kafkaPort, Map.of(new TopicPartition(TOPIC, 0), 1234L,
                    new TopicPartition(TOPIC, 1), 987L));
            broker.kill();
            stop.set(true);
            producerThread.join(TimeUnit.SECONDS.toMillis(120));
            int acknowledgedBeforeRestart = acknowledged.size();
            assertTrue(acknowledgedBeforeRestart >= 20_000);

            broker.start();
            assertEquals(committed, fetchCommitted(kafkaPort), "committed offsets intact after kill -9");
            Map<Long, Integer> seen = consumeAll(kafkaPort);
            for (long id : acknowledged) {
                assertEquals(1, seen.getOrDefault(id, 0), "acknowledged record " + id + " present exactly once");
            }
            for (Map.Entry<Long, Integer> entry : seen.entrySet()) {
                assertEquals(1, entry.getValue(), "record " + entry.getKey() + " appears once");
            }
        }
    }

    private static Properties groupConsumerProps(int port) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "crash-group");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }

    /** A standalone consumer (assign, group id, generation -1) commits the given offsets synchronously. */
    private static Map<TopicPartition, Long> commitOffsets(int port, Map<TopicPartition, Long> offsets) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(groupConsumerProps(port))) {
            consumer.assign(offsets.keySet());
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> commit = new java.util.HashMap<>();
            offsets.forEach((tp, offset) -> commit.put(tp,
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset, "before-crash")));
            consumer.commitSync(commit, Duration.ofSeconds(30));
        }
        return offsets;
    }

    private static Map<TopicPartition, Long> fetchCommitted(int port) {
        Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(groupConsumerProps(port))) {
            Set<TopicPartition> partitions = Set.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            consumer.committed(partitions, Duration.ofSeconds(30)).forEach((tp, committed) -> {
                assertEquals("before-crash", committed.metadata());
                offsets.put(tp, committed.offset());
            });
        }
        return offsets;
    }

    private static void produceUntilStopped(int port, AtomicBoolean stop, Set<Long> acknowledged) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long id = 0; !stop.get(); id++) {
                long recordId = id;
                byte[] value = ByteBuffer.allocate(8).putLong(recordId).array();
                try {
                    producer.send(new ProducerRecord<>(TOPIC, (int) (recordId % PARTITIONS), null, value),
                            (metadata, error) -> {
                                if (error == null) {
                                    acknowledged.add(recordId);
                                }
                            });
                } catch (org.apache.kafka.common.KafkaException e) {
                    return;
                }
            }
            producer.close(Duration.ofSeconds(15));
        }
    }

    /** Every record of every partition, counted by id; checks offsets are dense. */
    private static Map<Long, Integer> consumeAll(int port) throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<Long, Integer> seen = new ConcurrentHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            consumer.assign(partitions);
            partitions.forEach(tp -> consumer.seek(tp, 0));
            long[] expectedOffset = new long[PARTITIONS];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int emptyPolls = 0;
            while (System.nanoTime() < deadline && emptyPolls < 10) {
                var records = consumer.poll(Duration.ofMillis(500));
                emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    assertEquals(expectedOffset[record.partition()]++, record.offset(), "dense offsets");
                    seen.merge(ByteBuffer.wrap(record.value()).getLong(), 1, Integer::sum);
                }
            }
        }
        return seen;
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within " + seconds + " s");
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }
}
