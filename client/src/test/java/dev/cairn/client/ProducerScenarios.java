package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cairn's producer against the broker under test (Cairn: ProducerIT, Apache Kafka: KafkaProducerIT), checked by
 * the Kafka Java consumer (the interop oracle):
 * every acks level, every codec, headers, and idempotence across dropped connections (kafka-protocol.md A.3).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class ProducerScenarios {
    private static final int PARTITIONS = 3;
    /** Set by the concrete class (Cairn or Kafka) before its tests run; the ITs run one class at a time. */
    static BrokerUnderTest broker;

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ProducerConfig.Builder config() {
        return ProducerConfig.builder().bootstrapServers(broker.bootstrap()).clientId("producer-it");
    }

    /**
     * acks=0 gets no answer, so records sent while an auto-created partition is still electing its leader are lost
     * without notice (as with Kafka). One acknowledged record per partition first makes every leader ready; these
     * records are values v0, v1, v2 at offset 0.
     */
    private static void warmUp(String topic) throws Exception {
        try (CairnProducer producer = CairnProducer.create(config().build())) {
            for (int i = 0; i < PARTITIONS; i++) {
                producer.send(new ProducerRecord(topic, i, null, utf8("k" + i), utf8("v" + i), List.of()))
                        .get(60, TimeUnit.SECONDS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1", "all"})
    void everyAcksLevelDeliversEveryRecordOnce(String acks) throws Exception {
        String topic = "acks-" + acks;
        int count = 5_000;
        warmUp(topic);
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        try (CairnProducer producer = CairnProducer.create(config().acks(acks).build())) {
            for (int i = PARTITIONS; i < count; i++) {
                futures.add(producer.send(new ProducerRecord(topic, i % PARTITIONS, null, utf8("k" + i),
                        utf8("v" + i), List.of())));
            }
            producer.flush(Duration.ofSeconds(60));
        }
        long[] next = {1, 1, 1};
        for (int i = PARTITIONS; i < count; i++) {
            RecordMetadata metadata = futures.get(i - PARTITIONS).get(10, TimeUnit.SECONDS);
            assertEquals(i % PARTITIONS, metadata.partition());
            long expected = acks.equals("0") ? RecordMetadata.UNKNOWN_OFFSET : next[metadata.partition()]++;
            assertEquals(expected, metadata.offset(), "offset of record " + i);
        }
        var records = KafkaOracle.consumeAll(broker.bootstrap(), topic, PARTITIONS, count);
        long[] perPartition = new long[PARTITIONS];
        for (var record : records) {
            int i = Integer.parseInt(new String(record.value(), StandardCharsets.UTF_8).substring(1));
            assertEquals(i % PARTITIONS, record.partition());
            assertEquals(perPartition[record.partition()]++, record.offset());
            assertEquals("k" + i, new String(record.key(), StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void kafkaConsumerReadsEveryCodecWithHeaders(CompressionType compression) throws Exception {
        String topic = "codec-" + compression.kafkaName();
        int count = 2_000;
        long baseTimestamp = System.currentTimeMillis() - 10_000;
        try (CairnProducer producer = CairnProducer.create(config().compression(compression).build())) {
            for (int i = 0; i < count; i++) {
                byte[] key = i % 10 == 0 ? null : utf8("key-" + i);
                producer.send(new ProducerRecord(topic, 0, baseTimestamp + i, key, utf8("value-" + i),
                        List.of(new Header("h1", utf8("hv-" + i)), new Header("h2", null))));
            }
            producer.flush(Duration.ofSeconds(60));
        }
        var records = KafkaOracle.consumeAll(broker.bootstrap(), topic, 1, count);
        for (int i = 0; i < count; i++) {
            var record = records.get(i);
            assertEquals(i, record.offset());
            assertEquals(baseTimestamp + i, record.timestamp());
            assertArrayEquals(i % 10 == 0 ? null : utf8("key-" + i), record.key());
            assertArrayEquals(utf8("value-" + i), record.value());
            var headers = record.headers().toArray();
            assertEquals(2, headers.length);
            assertEquals("h1", headers[0].key());
            assertArrayEquals(utf8("hv-" + i), headers[0].value());
            assertEquals("h2", headers[1].key());
            assertEquals(null, headers[1].value());
        }
    }

    /**
     * batch.size far above the topic's max.message.bytes: the broker refuses the batches (MESSAGE_TOO_LARGE) and the
     * producer splits them until they fit, keeping order and sequences, as Kafka's producer does; a single record
     * above the limit fails with MESSAGE_TOO_LARGE and the records around it are still written.
     */
    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = {"NONE", "GZIP"})
    void batchesAboveMaxMessageBytesAreSplit(CompressionType compression) throws Exception {
        String topic = "split-" + compression.kafkaName();
        int messageBytesMax = 4_096;
        try (CairnAdmin admin = CairnAdmin.create(AdminConfig.builder().bootstrapServers(broker.bootstrap())
                .build())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1,
                    Map.of("max.message.bytes", Integer.toString(messageBytesMax)))));
        }
        int count = 3_000;
        int tooLarge = 1_500;
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        long split;
        try (CairnProducer producer = CairnProducer.create(config().batchSizeBytes(256 * 1024).lingerMs(50)
                .compression(compression).build())) {
            for (int i = 0; i < count; i++) {
                // Random-looking values, so that gzip cannot shrink a 256 KiB batch under the limit.
                byte[] value = randomValue(i, i == tooLarge ? 2 * messageBytesMax : 200);
                futures.add(producer.send(new ProducerRecord(topic, 0, null, null, value,
                        List.of(new Header("i", utf8(Integer.toString(i)))))));
            }
            producer.flush(Duration.ofSeconds(60));
            split = producer.splitBatchesForTesting();
        }
        assertTrue(split > 0, "batches split: " + split);
        var refused = assertThrows(ExecutionException.class, () -> futures.get(tooLarge).get(10, TimeUnit.SECONDS));
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, ((CairnApiException) refused.getCause()).errorCode());
        long next = 0;
        for (int i = 0; i < count; i++) {
            if (i != tooLarge) {
                assertEquals(next++, futures.get(i).get(10, TimeUnit.SECONDS).offset(), "offset of record " + i);
            }
        }
        var records = KafkaOracle.consumeAll(broker.bootstrap(), topic, 1, count - 1);
        int expected = 0;
        for (var record : records) {
            if (expected == tooLarge) {
                expected++;
            }
            assertArrayEquals(randomValue(expected, 200), record.value(), "record at offset " + record.offset());
            assertArrayEquals(utf8(Integer.toString(expected)), record.headers().lastHeader("i").value());
            expected++;
        }
    }

    private static byte[] randomValue(int seed, int bytes) {
        byte[] value = new byte[bytes];
        new java.util.Random(seed).nextBytes(value);
        return value;
    }

    @Test
    void idempotentProducerWritesNoDuplicatesAcrossDroppedConnections() throws Exception {
        String topic = "drops";
        int count = 50_000;
        int dropEvery = 5_000;
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        long retried;
        int drops = 0;
        try (CairnProducer producer = CairnProducer.create(config().lingerMs(1).build())) {
            boolean dropDue = false;
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new ProducerRecord(topic, i % PARTITIONS, null, null, utf8("v" + i),
                        List.of())));
                dropDue |= i % dropEvery == dropEvery - 1;
                // A fast broker may have answered every request by now: the cut waits for the next one in flight,
                // which the following sends make.
                if (dropDue && producer.dropConnectionsWhileInFlightForTesting(Duration.ofMillis(100))) {
                    drops++;
                    dropDue = false;
                }
            }
            producer.flush(Duration.ofSeconds(120));
            retried = producer.retriedBatchesForTesting();
        }
        assertTrue(drops >= count / dropEvery - 1, "connections cut with requests in flight: " + drops);
        // The drops cut requests in flight; unless every one of them had been answered an instant before its cut,
        // batches were resent, which is what this test is about.
        assertTrue(retried > 0, "batches retried after dropped connections: " + retried);
        long[] next = new long[PARTITIONS];
        for (int i = 0; i < count; i++) {
            RecordMetadata metadata = futures.get(i).get(10, TimeUnit.SECONDS);
            assertEquals(next[metadata.partition()]++, metadata.offset(), "record " + i + " offset");
        }
        var records = KafkaOracle.consumeAll(broker.bootstrap(), topic, PARTITIONS, count);
        long[] expectedIndex = {0, 1, 2};
        for (var record : records) {
            int i = Integer.parseInt(new String(record.value(), StandardCharsets.UTF_8).substring(1));
            assertEquals(expectedIndex[record.partition()], i, "partition order kept, no duplicates");
            expectedIndex[record.partition()] += PARTITIONS;
        }
    }
}
