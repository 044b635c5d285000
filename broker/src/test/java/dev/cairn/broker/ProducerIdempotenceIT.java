package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idempotence under a lost acknowledgement (KIP-98): the broker appends a batch, the response is lost with
 * the connection, the default Java producer retries the same batch, and the broker answers it with the
 * original offsets instead of appending it twice.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProducerIdempotenceIT {
    private static final int RECORDS = 2000;
    private static final int LOST_RESPONSES = 5;

    @TempDir
    Path dataDir;

    @Test
    void retriedBatchesAfterLostResponsesAreNotDuplicated() throws Exception {
        // The broker advertises the proxy's address, so every client request travels through it.
        int proxyPort = BrokerFixture.freePort();
        int kafkaPort = BrokerFixture.freePort();
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of(
                "listeners", "127.0.0.1:" + kafkaPort, "advertised.listeners", "127.0.0.1:" + proxyPort));
             ResponseDroppingProxy proxy = new ResponseDroppingProxy(kafkaPort, LOST_RESPONSES, proxyPort)) {
            String topic = "idempotent";
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(proxyPort))) {
                for (int i = 0; i < RECORDS; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, 0, null, bytes("v" + i))));
                    if (i % 100 == 0) {
                        producer.flush();
                    }
                }
                producer.flush();
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
            assertEquals(LOST_RESPONSES, proxy.dropped(), "responses were lost after the broker appended");
            List<String> values = consumeAll(kafkaPort, topic, RECORDS);
            Set<String> distinct = new HashSet<>(values);
            assertEquals(RECORDS, values.size(), "no record appended twice");
            assertEquals(RECORDS, distinct.size(), "every record exactly once");
            for (int i = 0; i < RECORDS; i++) {
                assertEquals("v" + i, values.get(i), "order preserved");
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Properties producerProps(int port) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        return props;
    }

    /** Reads the partition directly from the broker (not through the proxy), from offset 0, bounded in time. */
    private static List<String> consumeAll(int port, String topic, int atLeast) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // Keep polling a little past the expected count so that duplicates, if any, are seen too.
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
                if (values.size() >= atLeast && quietUntil == Long.MAX_VALUE) {
                    quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
            }
        }
        return values;
    }
}
