package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The official Java client, used as the interop oracle in the client's integration tests. */
final class KafkaOracle {
    /** How long an oracle read may take before the test fails. */
    static final long CONSUME_TIMEOUT_MS = 120_000;

    private KafkaOracle() {
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, Object> extra) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    /** Reads every record of the given partitions from offset 0 until {@code expected} arrived. */
    static List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> consumeAll(String bootstrap,
            String topic, int partitions, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<org.apache.kafka.common.TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assigned.add(new org.apache.kafka.common.TopicPartition(topic, p));
            }
            consumer.assign(assigned);
            assigned.forEach(tp -> consumer.seek(tp, 0));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONSUME_TIMEOUT_MS);
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            // One more short poll catches records beyond the expected count (duplicates would show up here).
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        assertEquals(expected, records.size(), "records read by the Kafka consumer");
        return records;
    }
}
