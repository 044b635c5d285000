package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, acceptance 1 on three broker processes: a Kafka Streams 4.4 word count at RF=3 (its changelog and
 * repartition topics included) keeps counting while a broker is killed with SIGKILL, and after it restarts.
 * At-least-once processing may count a record twice across the failure (Kafka's contract, not a Cairn property),
 * so each word's final count must reach the number of times it was sent, and the test reports any excess.
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class StreamsFailoverIT {
    private static final String APPLICATION = "cairn-word-count-rf3";
    private static final String INPUT = "lines-rf3";
    private static final String OUTPUT = "word-counts-rf3";
    private static final List<String> WORDS = List.of("raft", "kafka", "cairn", "log", "segment", "offset");
    private static final long WAIT_SECONDS = 150;

    @TempDir
    Path dir;
    private BrokerProcessCluster cluster;

    @AfterEach
    void stop() throws InterruptedException {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String bootstrap() {
        return cluster.bootstrap();
    }

    @Test
    void wordCountCarriesOnThroughABrokerKill() throws Exception {
        startBrokers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(INPUT, 3, (short) 3), new NewTopic(OUTPUT, 3, (short) 3)))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = new HashMap<>();
        try (KafkaStreams streams = streams(dir.resolve("state"))) {
            streams.start();
            produceLines(0, 150, expected);
            awaitCounts(expected);

            cluster.broker(1).kill();
            produceLines(150, 150, expected);
            awaitCounts(expected);

            cluster.broker(1).start();
            cluster.broker(1).awaitStarted();
            produceLines(300, 150, expected);
            Map<String, Long> counted = awaitCounts(expected);
            assertEquals(KafkaStreams.State.RUNNING, streams.state());
            System.out.println("StreamsFailoverIT: expected " + expected + ", counted " + counted);
        }
    }

    private void startBrokers() throws Exception {
        cluster = BrokerProcessCluster.onLoopback(dir, 3, Map.of("default.replication.factor", "3",
                "group.initial.rebalance.delay.ms", "0"));
    }

    private KafkaStreams streams(Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return new KafkaStreams(builder.build(), props);
    }

    private void produceLines(int first, int count, Map<String, Long> expected) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = first; i < first + count; i++) {
                String line = WORDS.get(i % 6) + " " + WORDS.get((i / 6) % 6) + " Cairn";
                for (String word : line.toLowerCase(Locale.ROOT).split(" ")) {
                    expected.merge(word, 1L, Long::sum);
                }
                acks.add(producer.send(new ProducerRecord<>(INPUT, "line-" + i, line)));
            }
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Reads the output until every word's latest count has reached the expected one; returns the counts. */
    private Map<String, Long> awaitCounts(Map<String, Long> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1),
                    new TopicPartition(OUTPUT, 2)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!reached(latest, expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(record.key(), record.value());
                }
            }
        }
        assertTrue(reached(latest, expected), "counts " + latest + ", expected at least " + expected);
        return latest;
    }

    private static boolean reached(Map<String, Long> latest, Map<String, Long> expected) {
        if (!latest.keySet().equals(expected.keySet())) {
            return false;
        }
        for (Map.Entry<String, Long> word : expected.entrySet()) {
            if (latest.get(word.getKey()) < word.getValue()) {
                return false;
            }
        }
        return true;
    }
}
