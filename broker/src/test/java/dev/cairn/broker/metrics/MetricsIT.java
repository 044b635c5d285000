package dev.cairn.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scrapes the Prometheus endpoint of a real broker while kafka-clients produces and a consumer group joins, and
 * checks that each metric moves with what happened: requests and latencies per API, bytes in and out, Raft
 * commits, log size and segments, partitions and leaders, connections and consumer groups.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetricsIT {
    private static final String TOPIC = "metered";
    private static final int RECORDS = 50;
    private static final long WAIT_MS_MAX = 60_000;

    @TempDir
    Path dataDir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void countersMoveWhileProducing() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("metrics.port", "0",
                "num.partitions", "2", "group.initial.rebalance.delay.ms", "0"))) {
            int port = broker.broker().metricsPort();
            assertTrue(port > 0, "metrics.port=0 binds a free port");
            String before = scrape(port);
            assertEquals(0.0, value(before, "cairn_requests_total{api=\"Produce\"}"), before);
            assertEquals(0.0, value(before, "cairn_partitions"), before);

            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker.bootstrap()))) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, "key-" + i, "value-" + i)).get(30, TimeUnit.SECONDS);
                }
                String during = scrape(port);
                assertTrue(value(during, "cairn_connections") >= 1, during);
            }

            String after = scrape(port);
            assertTrue(value(after, "cairn_requests_total{api=\"Produce\"}") >= RECORDS, after);
            assertTrue(value(after, "cairn_request_latency_seconds_count{api=\"Produce\"}") >= RECORDS, after);
            assertTrue(value(after, "cairn_request_latency_seconds_sum{api=\"Produce\"}") > 0, after);
            assertTrue(value(after, "cairn_requests_total{api=\"Metadata\"}") >= 1, after);
            assertTrue(value(after, "cairn_bytes_in_total") > RECORDS * 10, after);
            assertTrue(value(after, "cairn_bytes_out_total") > 0, after);
            assertTrue(value(after, "cairn_raft_commit_latency_seconds_count") >= RECORDS, after);
            assertEquals(2.0, value(after, "cairn_partitions"), after);
            assertEquals(2.0, value(after, "cairn_partition_leaders"), after);
            assertEquals(0.0, value(after, "cairn_under_replicated_partitions"), after);
            assertTrue(value(after, "cairn_log_size_bytes") > RECORDS * 10, after);
            assertEquals(2.0, value(after, "cairn_log_segments"), after);
            assertEquals(0.0, value(after, "cairn_consumer_groups"), after);
            // Per topic (each record was sent alone, so one record per produced batch), and the JVM's meters.
            assertEquals(RECORDS, value(after, "cairn_topic_records_in_total{topic=\"" + TOPIC + "\"}"), after);
            assertTrue(value(after, "cairn_topic_bytes_in_total{topic=\"" + TOPIC + "\"}") > RECORDS * 10, after);
            assertTrue(value(after, "jvm_threads_live_threads") > 0, after);
            assertTrue(after.contains("jvm_memory_used_bytes{area=\"heap\""), after);
            assertTrue(after.contains("jvm_buffer_memory_used_bytes{id=\"direct\"}"), after);

            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(broker.bootstrap()))) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS_MAX);
                while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
                assertEquals(2, consumer.assignment().size());
                String grouped = scrape(port);
                assertEquals(1.0, value(grouped, "cairn_consumer_groups"), grouped);
                assertTrue(value(grouped, "cairn_requests_total{api=\"JoinGroup\"}") >= 1, grouped);

                // Group lag, reported by the partition's leader once the group committed an offset there.
                consumer.commitSync(java.util.Map.of(new org.apache.kafka.common.TopicPartition(TOPIC, 0),
                        new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)));
                String series = "cairn_consumer_group_lag{group=\"metered-group\",partition=\"0\",topic=\"" + TOPIC
                        + "\"}";
                String lagged = scrape(port);
                while (!lagged.contains(series) && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(15)) {
                    TimeUnit.MILLISECONDS.sleep(250);
                    lagged = scrape(port);
                }
                assertTrue(value(lagged, series) > 0, "partition 0 holds records the group has not consumed: "
                        + lagged);
                assertEquals(0.0, value(lagged, "cairn_consumer_group_lag_series_dropped"), lagged);
            }
        }
    }

    @Test
    void otherPathsAreNotFound() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of("metrics.port", "0"))) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + broker.broker().metricsPort() + "/other")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, response.statusCode());
        }
    }

    @Test
    void disabledByDefault() throws Exception {
        try (BrokerFixture broker = BrokerFixture.start(dataDir, Map.of())) {
            assertEquals(-1, broker.broker().metricsPort());
        }
    }

    private String scrape(int port) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        return response.body();
    }

    /** The value of the sample named exactly {@code series} (name plus labels as the scrape prints them). */
    static double value(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("no series " + series + " in:\n" + scrape);
    }

    private static Properties producerProps(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return props;
    }

    private static Properties consumerProps(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "metered-group");
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return props;
    }
}
