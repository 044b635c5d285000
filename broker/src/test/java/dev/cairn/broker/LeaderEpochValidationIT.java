package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-320 against three brokers at RF=3 with kafka-clients 4.4: a consumer reading with {@code auto.offset.reset=none}
 * (so a detected truncation, or an epoch the leader cannot place, would fail its poll with LogTruncationException)
 * keeps reading without a gap or a repeat while the partition's leader is stopped and another takes over, and it
 * does validate its position with OffsetForLeaderEpoch on the new leader (counted by the brokers' request metrics).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LeaderEpochValidationIT {
    private static final String TOPIC = "validated";
    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aConsumerValidatesItsPositionAcrossALeaderChangeAndReadsOn() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("metrics.port", "0", "auto.leader.rebalance.enable", "false",
                "auto.create.topics.enable", "false"));
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
            produce(0, 200);
            try (KafkaConsumer<String, String> consumer = consumer()) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, 0);
                List<Long> offsets = new ArrayList<>();
                readUntil(consumer, offsets, 200);

                int leader = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                        .get(TOPIC).partitions().get(0).leader().id();
                cluster.stop(leader);
                produce(200, 200);
                readUntil(consumer, offsets, 400);

                List<Long> expected = new ArrayList<>();
                for (long offset = 0; offset < 400; offset++) {
                    expected.add(offset);
                }
                assertEquals(expected, offsets, "every record once, in order, across the leader change");
                long validations = 0;
                for (int node = 1; node <= 3; node++) {
                    if (node != leader) {
                        validations += requestCount(node, "OffsetForLeaderEpoch");
                    }
                }
                assertTrue(validations > 0, "the consumer validated its position on the new leader");
                System.out.println("LeaderEpochValidationIT: OffsetForLeaderEpoch requests after the leader change: "
                        + validations);
            }
        }
    }

    private KafkaConsumer<String, String> consumer() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        return new KafkaConsumer<>(props);
    }

    private static void readUntil(KafkaConsumer<String, String> consumer, List<Long> offsets, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (offsets.size() < count) {
            assertTrue(System.nanoTime() < deadline, "read " + offsets.size() + " of " + count + " records");
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                assertTrue(record.value().startsWith("record-" + record.offset() + "-"), record.value());
                offsets.add(record.offset());
            }
        }
    }

    private void produce(int first, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = first; i < first + count; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, "record-" + i + "-" + "x".repeat(100))));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** The broker's count of requests of one API, from its Prometheus endpoint. */
    private long requestCount(int node, String api) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + cluster.broker(node).metricsPort() + "/metrics");
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(WAIT_SECONDS)).build(), HttpResponse.BodyHandlers.ofString());
        String prefix = "cairn_requests_total{api=\"" + api + "\"";
        return response.body().lines().filter(line -> line.startsWith(prefix))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
