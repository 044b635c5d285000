package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.client.internal.ConfigValues.HostPort;
import dev.cairn.protocol.record.compression.CompressionType;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Typed builders and Kafka-named Properties mean the same; bad values fail with messages naming them. */
class ConfigTest {
    @Test
    void producerDefaultsAreKafkas() {
        ProducerConfig config = ProducerConfig.builder().bootstrapServers("h1:9092,h2:9093").build();
        assertEquals(2, config.bootstrapServers().size());
        assertEquals(-1, config.acks());
        assertTrue(config.idempotent());
        assertEquals(16_384, config.batchSizeBytes());
        assertEquals(5, config.lingerMs());
        assertEquals(32L * 1024 * 1024, config.bufferMemoryBytes());
        assertEquals(CompressionType.NONE, config.compressionType());
        assertEquals(120_000, config.deliveryTimeoutMs());
        assertEquals(5, config.inFlightRequestsMax());
    }

    @Test
    void producerPropertiesUseKafkaKeyNames() {
        ProducerConfig config = ProducerConfig.fromProperties(properties("bootstrap.servers", "localhost:9092",
                "acks", "1", "compression.type", "zstd", "linger.ms", "20", "batch.size", "65536"));
        assertEquals(1, config.acks());
        assertFalse(config.idempotent(), "idempotence left unset turns off with acks=1, as in Kafka");
        assertEquals(CompressionType.ZSTD, config.compressionType());
        assertEquals(20, config.lingerMs());
        assertEquals(65_536, config.batchSizeBytes());
    }

    @Test
    void inconsistentOrMalformedSettingsAreRejectedAndNotRetriable() {
        CairnConfigException idempotence = assertThrows(CairnConfigException.class, () -> ProducerConfig.builder()
                .bootstrapServers("h:1").acks("1").idempotence(true).build());
        assertTrue(idempotence.getMessage().contains("acks=1"), idempotence.getMessage());
        assertFalse(idempotence.isRetriable());
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().bootstrapServers("no-port").build());
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().set("lingr.ms", 5));
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().bootstrapServers("h:1")
                .set("batch.size", "big").build());
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().bootstrapServers("h:1")
                .compression(CompressionType.GZIP).set("compression.type", "brotli").build());
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().bootstrapServers("h:1")
                .set("max.in.flight.requests.per.connection", 6).build());
        assertThrows(CairnConfigException.class, () -> ProducerConfig.builder().build());
    }

    @Test
    void consumerPropertiesUseKafkaKeyNames() {
        ConsumerConfig config = ConsumerConfig.fromProperties(properties("bootstrap.servers", "localhost:9092",
                "group.id", "g", "auto.offset.reset", "earliest", "max.poll.records", "10"));
        assertEquals("g", config.groupId());
        assertEquals(ConsumerConfig.OffsetReset.EARLIEST, config.offsetReset());
        assertEquals(10, config.pollRecordsMax());
        assertEquals(ConsumerConfig.OffsetReset.LATEST,
                ConsumerConfig.builder().bootstrapServers("h:1").build().offsetReset());
        assertThrows(CairnConfigException.class, () -> ConsumerConfig.builder().bootstrapServers("h:1")
                .set("auto.offset.reset", "smallest").build());
        assertThrows(CairnConfigException.class, () -> ConsumerConfig.builder().bootstrapServers("h:1")
                .fetchMaxWaitMs(40_000).build());
    }

    @Test
    void commonAndSpecificSettersChainInAnyOrder() {
        ProducerConfig producer = ProducerConfig.builder().clientId("p").acks("1").bootstrapServers("h:1")
                .lingerMs(7).requestTimeoutMs(9_000).build();
        assertEquals("p", producer.clientId());
        assertEquals(1, producer.acks());
        assertEquals(7, producer.lingerMs());
        assertEquals(9_000, producer.requestTimeoutMs());
        ConsumerConfig consumer = ConsumerConfig.builder().bootstrapServers("h:1").groupId("g").retryBackoffMs(50)
                .maxPollRecords(3).metadataMaxAgeMs(1_000).build();
        assertEquals("g", consumer.groupId());
        assertEquals(50, consumer.retryBackoffMs());
        assertEquals(3, consumer.pollRecordsMax());
        assertEquals(1_000, consumer.metadataMaxAgeMs());
        AdminConfig admin = AdminConfig.builder().requestTimeoutMs(8_000).defaultApiTimeoutMs(20_000)
                .bootstrapServers("h:1").build();
        assertEquals(8_000, admin.requestTimeoutMs());
        assertEquals(20_000, admin.defaultApiTimeoutMs());
        assertEquals("h", admin.bootstrapServers().get(0).host());
    }

    @Test
    void commonKeysKeepKafkasDefaultsAndEachClientsOwnClientId() {
        ProducerConfig producer = ProducerConfig.builder().bootstrapServers("h:1").build();
        ConsumerConfig consumer = ConsumerConfig.builder().bootstrapServers("h:1").build();
        AdminConfig admin = AdminConfig.builder().bootstrapServers("h:1").build();
        assertEquals("cairn-producer", producer.clientId());
        assertEquals("cairn-consumer", consumer.clientId());
        assertEquals("cairn-admin", admin.clientId());
        for (CommonClientConfig config : List.of(producer, consumer, admin)) {
            assertEquals(30_000, config.requestTimeoutMs());
            assertEquals(100, config.retryBackoffMs());
            assertEquals(300_000, config.metadataMaxAgeMs());
        }
        assertEquals(60_000, admin.defaultApiTimeoutMs());
        assertEquals(60_000, consumer.defaultApiTimeoutMs());
    }

    @Test
    void commonKeysFromPropertiesMeanTheSameForEveryClient() {
        Properties properties = properties("bootstrap.servers", "h1:9092,h2:9093", "client.id", "reporting",
                "request.timeout.ms", "12000", "retry.backoff.ms", "250", "metadata.max.age.ms", "60000");
        List<CommonClientConfig> configs = List.of(ProducerConfig.fromProperties(properties),
                ConsumerConfig.fromProperties(properties), AdminConfig.fromProperties(properties));
        for (CommonClientConfig config : configs) {
            assertEquals(List.of(new HostPort("h1", 9092), new HostPort("h2", 9093)), config.bootstrapServers());
            assertEquals("reporting", config.clientId());
            assertEquals(12_000, config.requestTimeoutMs());
            assertEquals(250, config.retryBackoffMs());
            assertEquals(60_000, config.metadataMaxAgeMs());
        }
    }

    @Test
    void eachClientRejectsAnotherClientsKeysNamingItself() {
        CairnConfigException producer = assertThrows(CairnConfigException.class,
                () -> ProducerConfig.builder().set("group.id", "g"));
        assertTrue(producer.getMessage().startsWith("unknown producer setting 'group.id'"), producer.getMessage());
        CairnConfigException consumer = assertThrows(CairnConfigException.class,
                () -> ConsumerConfig.builder().set("acks", "all"));
        assertTrue(consumer.getMessage().startsWith("unknown consumer setting 'acks'"), consumer.getMessage());
        CairnConfigException admin = assertThrows(CairnConfigException.class,
                () -> AdminConfig.fromProperties(properties("linger.ms", "5")));
        assertTrue(admin.getMessage().contains("unknown admin setting 'linger.ms'"), admin.getMessage());
        assertTrue(admin.getMessage().contains(CommonClientConfig.METADATA_MAX_AGE_MS), admin.getMessage());
    }

    /** Kafka-style settings from alternating keys and values. */
    private static Properties properties(String... keysAndValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        }
        return properties;
    }
}
