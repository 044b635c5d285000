package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.compression.CompressionType;
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
        Properties properties = new Properties();
        properties.setProperty("bootstrap.servers", "localhost:9092");
        properties.setProperty("acks", "1");
        properties.setProperty("compression.type", "zstd");
        properties.setProperty("linger.ms", "20");
        properties.setProperty("batch.size", "65536");
        ProducerConfig config = ProducerConfig.fromProperties(properties);
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
        Properties properties = new Properties();
        properties.setProperty("bootstrap.servers", "localhost:9092");
        properties.setProperty("group.id", "g");
        properties.setProperty("auto.offset.reset", "earliest");
        properties.setProperty("max.poll.records", "10");
        ConsumerConfig config = ConsumerConfig.fromProperties(properties);
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
}
