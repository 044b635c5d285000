package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.BrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Positions of the consumer: auto.offset.reset, seekToBeginning/End, and commits with an assigned (group-less
 * membership) consumer that kafka-clients reads back (kafka-protocol.md A.1 "assign + commitSync").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerOffsetsIT {
    private static final String TOPIC = "positions";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final int RECORDS = 20;
    /** The longest a test polls for records. */
    private static final long READ_TIMEOUT_MS = 30_000;
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("num.partitions", "1"));
        try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                .bootstrapServers(broker.bootstrap()).build())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord(TOPIC, 0, null, null, new byte[] {(byte) i}, List.of()));
            }
            producer.flush(Duration.ofSeconds(30));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static CairnConsumer consumer(String groupId, ConsumerConfig.OffsetReset reset) {
        ConsumerConfig.Builder builder = ConsumerConfig.builder().bootstrapServers(broker.bootstrap())
                .offsetReset(reset).fetchMaxWaitMs(100);
        if (groupId != null) {
            builder.groupId(groupId);
        }
        return CairnConsumer.create(builder.build());
    }

    private static List<ConsumerRecord> pollUntil(CairnConsumer consumer, int expected) {
        List<ConsumerRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
        while (records.size() < expected && System.nanoTime() < deadline) {
            records.addAll(consumer.poll(Duration.ofMillis(100)));
        }
        return records;
    }

    @Test
    void offsetResetEarliestAndLatest() {
        try (CairnConsumer earliest = consumer(null, ConsumerConfig.OffsetReset.EARLIEST)) {
            earliest.assign(List.of(PARTITION));
            List<ConsumerRecord> records = pollUntil(earliest, RECORDS);
            assertEquals(RECORDS, records.size());
            assertEquals(0, records.get(0).offset());
        }
        try (CairnConsumer latest = consumer(null, ConsumerConfig.OffsetReset.LATEST)) {
            latest.assign(List.of(PARTITION));
            assertEquals(RECORDS, latest.position(PARTITION));
        }
        try (CairnConsumer none = consumer(null, ConsumerConfig.OffsetReset.NONE)) {
            none.assign(List.of(PARTITION));
            CairnException noPosition = assertThrows(CairnException.class, () -> none.poll(Duration.ofMillis(100)));
            assertFalse(noPosition.isRetriable());
        }
    }

    @Test
    void seekToBeginningEndAndOutOfRange() {
        try (CairnConsumer consumer = consumer(null, ConsumerConfig.OffsetReset.EARLIEST)) {
            consumer.assign(List.of(PARTITION));
            consumer.seekToEnd(List.of(PARTITION));
            assertEquals(RECORDS, consumer.position(PARTITION));
            consumer.seekToBeginning(List.of(PARTITION));
            assertEquals(0, consumer.position(PARTITION));
            consumer.seek(PARTITION, 1_000);
            List<ConsumerRecord> records = pollUntil(consumer, RECORDS);
            assertEquals(RECORDS, records.size(), "out of range resets to earliest");
            assertEquals(0, records.get(0).offset());
        }
    }

    @Test
    void committedOffsetsResumeAndKafkaReadsThem() {
        try (CairnConsumer consumer = consumer("group-a", ConsumerConfig.OffsetReset.EARLIEST)) {
            consumer.assign(List.of(PARTITION));
            List<ConsumerRecord> records = pollUntil(consumer, 5);
            consumer.commitSync(Map.of(PARTITION, 5L), Duration.ofSeconds(10));
            assertEquals(Map.of(PARTITION, 5L), consumer.committed(List.of(PARTITION)));
            assertFalse(records.isEmpty());
        }
        try (CairnConsumer resumed = consumer("group-a", ConsumerConfig.OffsetReset.LATEST)) {
            resumed.assign(List.of(PARTITION));
            assertEquals(5, resumed.position(PARTITION), "starts at the committed offset, not the reset");
            List<ConsumerRecord> rest = pollUntil(resumed, RECORDS - 5);
            assertEquals(5, rest.get(0).offset());
            resumed.commitAsync().join();
        }
        Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrap());
        props.put("group.id", "group-a");
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> kafka = new KafkaConsumer<>(props)) {
            var tp = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
            assertEquals(RECORDS, kafka.committed(java.util.Set.of(tp)).get(tp).offset());
        }
    }
}
