package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cairn's consumer against the broker under test (Cairn: ConsumerIT, Apache Kafka: KafkaConsumerIT): what the
 * Kafka Java producer writes (every codec, headers) it reads back exactly, and a large run of Cairn-produced
 * records comes back exactly once and in order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class ConsumerScenarios {
    private static final int PARTITIONS = 3;
    /** The longest a test waits for records to arrive. */
    private static final long READ_TIMEOUT_MS = 120_000;
    /** Records in the exactly-once run; 1M stays well under a minute on a quiet machine. */
    private static final int LARGE_RUN_RECORDS = 1_000_000;
    /** Set by the concrete class (Cairn or Kafka) before its tests run; the ITs run one class at a time. */
    static BrokerUnderTest broker;

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static CairnConsumer consumer() {
        return CairnConsumer.create(ConsumerConfig.builder().bootstrapServers(broker.bootstrap())
                .clientId("consumer-it").build());
    }

    /** Polls from offset 0 of every partition until {@code expected} records arrived, plus one more poll. */
    private static List<ConsumerRecord> readAll(String topic, int partitions, int expected) {
        List<ConsumerRecord> records = new ArrayList<>();
        try (CairnConsumer consumer = consumer()) {
            List<TopicPartition> assignment = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assignment.add(new TopicPartition(topic, p));
            }
            consumer.assign(assignment);
            assignment.forEach(tp -> consumer.seek(tp, 0));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
            while (records.size() < expected && System.nanoTime() < deadline) {
                records.addAll(consumer.poll(Duration.ofMillis(200)));
            }
            records.addAll(consumer.poll(Duration.ofMillis(200)));
        }
        assertEquals(expected, records.size(), "records read");
        return records;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void readsWhatTheKafkaProducerWrote(String compression) throws Exception {
        String topic = "from-kafka-" + compression;
        int count = 3_000;
        long baseTimestamp = System.currentTimeMillis() - 10_000;
        try (KafkaProducer<byte[], byte[]> producer = KafkaOracle.producer(broker.bootstrap(),
                Map.of("compression.type", compression, "linger.ms", 5))) {
            for (int i = 0; i < count; i++) {
                var record = new org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]>(topic, 0, baseTimestamp + i,
                        i % 7 == 0 ? null : utf8("key-" + i), utf8("value-" + i));
                record.headers().add("h", utf8("hv-" + i));
                producer.send(record);
            }
            producer.flush();
        }
        List<ConsumerRecord> records = readAll(topic, 1, count);
        for (int i = 0; i < count; i++) {
            ConsumerRecord record = records.get(i);
            assertEquals(i, record.offset());
            assertEquals(baseTimestamp + i, record.timestampMs());
            assertArrayEquals(i % 7 == 0 ? null : utf8("key-" + i), record.key());
            assertEquals("value-" + i, text(record.value()));
            assertEquals(List.of(new Header("h", utf8("hv-" + i))), record.headers());
        }
    }

    /**
     * One partition is caught up (empty) while another still has many small fetches to come: the caught-up one must
     * not hold the leader's fetch for fetch.max.wait.ms each time the other has records buffered. With the wait at 20
     * s and one record per poll, that hold would take minutes for these 60 fetches; the test bounds it at a minute.
     */
    @Test
    void aCaughtUpPartitionDoesNotHoldBackTheOthers() throws Exception {
        String topic = "caught-up-beside-busy";
        int count = 120;
        try (KafkaProducer<byte[], byte[]> producer = KafkaOracle.producer(broker.bootstrap(), Map.of())) {
            for (int i = 0; i < count; i++) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 1, null,
                        new byte[900])).get();   // one batch per record
            }
        }
        int received = 0;
        try (CairnConsumer consumer = CairnConsumer.create(ConsumerConfig.builder()
                .bootstrapServers(broker.bootstrap()).clientId("caught-up-it").fetchMaxWaitMs(20_000)
                .partitionFetchBytesMax(2_048).maxPollRecords(1).build())) {
            List<TopicPartition> assignment = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received < count && System.nanoTime() < deadline) {
                received += consumer.poll(Duration.ofMillis(200)).size();
            }
        }
        assertEquals(count, received, "records read within the minute");
    }

    @Test
    void largeRunComesBackExactlyOnceInOrder() throws Exception {
        String topic = "large-run";
        int[] ackedPartition = new int[LARGE_RUN_RECORDS];
        long[] ackedOffset = new long[LARGE_RUN_RECORDS];
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long start = System.nanoTime();
        try (CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                .bootstrapServers(broker.bootstrap()).lingerMs(10).batchSizeBytes(64 * 1024).build())) {
            for (int i = 0; i < LARGE_RUN_RECORDS; i++) {
                int index = i;
                producer.send(new ProducerRecord(topic, utf8("key-" + i), utf8("value-" + i)))
                        .whenComplete((metadata, error) -> {
                            if (error != null) {
                                failed.incrementAndGet();
                                return;
                            }
                            ackedPartition[index] = metadata.partition();
                            ackedOffset[index] = metadata.offset();
                            acked.incrementAndGet();
                        });
            }
            producer.flush(Duration.ofSeconds(120));
        }
        long producedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, failed.get(), "failed sends");
        assertEquals(LARGE_RUN_RECORDS, acked.get(), "acknowledged sends");

        long[] nextOffset = new long[PARTITIONS];
        int[] lastIndex = {-1, -1, -1};
        boolean[] seen = new boolean[LARGE_RUN_RECORDS];
        int received = 0;
        try (CairnConsumer consumer = consumer()) {
            List<TopicPartition> assignment = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                assignment.add(new TopicPartition(topic, p));
            }
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
            while (received < LARGE_RUN_RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord record : consumer.poll(Duration.ofMillis(200))) {
                    int p = record.partition();
                    assertEquals(nextOffset[p]++, record.offset(), "dense offsets");
                    int i = Integer.parseInt(text(record.value()).substring("value-".length()));
                    assertTrue(i > lastIndex[p], "per-partition order");
                    lastIndex[p] = i;
                    assertEquals("key-" + i, text(record.key()));
                    assertFalse(seen[i], "duplicate of record " + i);
                    seen[i] = true;
                    assertEquals(ackedPartition[i], p, "acknowledged partition of record " + i);
                    assertEquals(ackedOffset[i], record.offset(), "acknowledged offset of record " + i);
                    received++;
                }
            }
            assertTrue(consumer.poll(Duration.ofMillis(200)).isEmpty(), "nothing beyond the records sent");
        }
        assertEquals(LARGE_RUN_RECORDS, received, "records read");
        System.out.printf("large run: %d records produced in %d ms, read in %d ms%n", LARGE_RUN_RECORDS, producedMs,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - producedMs);
    }
}
