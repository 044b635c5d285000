package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-node broker end to end with the official Java client on its DEFAULT producer settings
 * (idempotent, acks=all): records come back with equal keys, values, headers and timestamps, offsets dense.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SingleBrokerIT {
    private static final int PARTITIONS = 3;
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("num.partitions", Integer.toString(PARTITIONS)));
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> extra) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.putAll(extra);
        return new KafkaConsumer<>(props);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Consumes every partition from offset 0 until {@code expected} records arrived (bounded in time). */
    private static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> consumeAll(String topic, int expected) {
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(Map.of())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            partitions.forEach(tp -> consumer.seek(tp, 0));
            int received = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (received < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    byPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record);
                    received++;
                }
            }
            assertEquals(expected, received, "records consumed");
        }
        return byPartition;
    }

    /**
     * Issue 20: a transactional producer with its defaults initialises and commits on the single-node defaults; one
     * that asks for a timeout above transaction.max.timeout.ms is told so at once (a fatal error, not a retry).
     */
    @Test
    void aTransactionalProducerCommitsAndAnExcessiveTimeoutIsRefused() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("transactional", utf8("k"), utf8("v"))).get(60, TimeUnit.SECONDS);
            producer.commitTransaction();
        }
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-2",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 900_001, ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000))) {
            org.apache.kafka.common.KafkaException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    org.apache.kafka.common.KafkaException.class, producer::initTransactions);
            assertFalse(failed instanceof org.apache.kafka.common.errors.TimeoutException, failed.toString());
            // Kafka's client reports INVALID_TRANSACTION_TIMEOUT as a fatal error carrying the error's message.
            assertTrue(failed.getMessage().contains("transaction.max.timeout.ms"), failed.toString());
        }
    }

    @Test
    void defaultIdempotentProducerRoundTripsRecordsWithDenseOffsets() throws Exception {
        String topic = "round-trip";
        int count = 100_000;
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        long baseTimestamp = System.currentTimeMillis() - 60_000;
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            for (int i = 0; i < count; i++) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, i % PARTITIONS,
                        baseTimestamp + i, utf8("key-" + i), utf8("value-" + i));
                record.headers().add(new RecordHeader("h", utf8("header-" + i)));
                acks.add(producer.send(record));
            }
            producer.flush();
        }
        long[] nextOffset = new long[PARTITIONS];
        for (int i = 0; i < count; i++) {
            RecordMetadata metadata = acks.get(i).get(60, TimeUnit.SECONDS);
            assertEquals(i % PARTITIONS, metadata.partition());
            assertEquals(nextOffset[metadata.partition()]++, metadata.offset(), "acknowledged offsets are dense");
        }
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> consumed = consumeAll(topic, count);
        for (int p = 0; p < PARTITIONS; p++) {
            List<ConsumerRecord<byte[], byte[]>> records = consumed.get(p);
            for (int j = 0; j < records.size(); j++) {
                ConsumerRecord<byte[], byte[]> record = records.get(j);
                int i = j * PARTITIONS + p;
                assertEquals(j, record.offset(), "offsets are dense per partition");
                assertArrayEquals(utf8("key-" + i), record.key());
                assertArrayEquals(utf8("value-" + i), record.value());
                assertArrayEquals(utf8("header-" + i), record.headers().lastHeader("h").value());
                assertEquals(baseTimestamp + i, record.timestamp());
            }
        }
    }

    @Test
    void adminDescribesTopicsAndTheBrokerSurvivesHostileConnections() throws Exception {
        // Garbage from other connections first: bad lengths, truncated frames, unknown APIs and versions.
        List<byte[]> attacks = List.of(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfb},
                new byte[] {0x7f, 0, 0, 0}, new byte[] {0, 0, 0, 8, 0x03, (byte) 0xe7, 0, 0, 0, 0, 0, 1},
                new byte[] {0, 0, 0, 8, 0, 0, 0, 99, 0, 0, 0, 1}, new byte[] {0, 0, 0, 20, 0, 18});
        List<java.net.Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 500; i++) {
                idle.add(new java.net.Socket("127.0.0.1", broker.broker().kafkaPort()));
            }
            for (byte[] attack : attacks) {
                try (java.net.Socket socket = new java.net.Socket("127.0.0.1", broker.broker().kafkaPort())) {
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream().write(attack);
                    socket.shutdownOutput();
                    while (socket.getInputStream().read() != -1) {
                        continue;
                    }
                }
            }
            Properties props = new Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(props)) {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("described", 4, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
                var description = admin.describeTopics(List.of("described")).allTopicNames().get(60, TimeUnit.SECONDS)
                        .get("described");
                assertEquals(4, description.partitions().size());
                for (var partition : description.partitions()) {
                    assertEquals(1, partition.leader().id());
                    assertEquals(1, partition.replicas().size());
                    assertEquals(1, partition.isr().size());
                }
            }
            try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
                assertEquals(0, producer.send(new ProducerRecord<>("described", 0, null, utf8("still serving")))
                        .get(60, TimeUnit.SECONDS).offset());
            }
        } finally {
            for (java.net.Socket socket : idle) {
                socket.close();
            }
        }
    }

    @Test
    void compressedBatchesAndALargeRecordRoundTrip() throws Exception {
        for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            String topic = "codec-" + codec;
            try (KafkaProducer<byte[], byte[]> producer = producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    codec, ProducerConfig.LINGER_MS_CONFIG, 5))) {
                for (int i = 0; i < 3000; i++) {
                    producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, utf8("k" + i),
                            utf8(codec + "-value-" + i + "-" + "x".repeat(i % 50))));
                }
                producer.flush();
            }
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> consumed = consumeAll(topic, 3000);
            for (int p = 0; p < PARTITIONS; p++) {
                List<ConsumerRecord<byte[], byte[]>> records = consumed.get(p);
                for (int j = 0; j < records.size(); j++) {
                    int i = j * PARTITIONS + p;
                    assertArrayEquals(utf8(codec + "-value-" + i + "-" + "x".repeat(i % 50)), records.get(j).value(),
                            codec + " record " + i);
                }
            }
        }
        byte[] large = new byte[1_000_000];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (i * 31);
        }
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            RecordMetadata metadata = producer.send(new ProducerRecord<>("large", 0, utf8("big"), large))
                    .get(60, TimeUnit.SECONDS);
            assertEquals(0, metadata.offset());
        }
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> consumed = consumeAll("large", 1);
        assertArrayEquals(large, consumed.get(0).get(0).value());
        assertTrue(consumed.get(0).get(0).serializedValueSize() == large.length);
    }
}
