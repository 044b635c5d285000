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
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, acceptance 1 on one broker: an unmodified Kafka Streams 4.4 word count with a state store
 * ({@code processing.guarantee=at_least_once}, Streams' defaults otherwise) runs against Cairn. Streams creates its
 * compacted changelog and its repartition topic itself, counts correctly, and a second instance with an empty state
 * directory restores the store from the changelog and carries on counting from where the first stopped.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamsWordCountIT {
    private static final String APPLICATION = "cairn-word-count";
    private static final String INPUT = "lines";
    private static final String OUTPUT = "word-counts";
    private static final List<String> WORDS = List.of("raft", "kafka", "cairn", "log", "segment", "offset");
    private static final long WAIT_SECONDS = 120;

    @TempDir
    static Path dataDir;
    @TempDir
    static Path stateDirs;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("group.initial.rebalance.delay.ms", "0"));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(INPUT, 2, (short) 1), new NewTopic(OUTPUT, 2, (short) 1)))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    @Test
    void wordCountCountsAndRestoresItsStoreFromTheChangelog() throws Exception {
        Map<String, Long> expected = new HashMap<>();
        try (KafkaStreams first = streams(stateDirs.resolve("first"))) {
            first.start();
            produceLines(0, 200, expected);
            awaitCounts(expected);
        }
        try (Admin admin = admin()) {
            String changelog = APPLICATION + "-counts-changelog";
            assertEquals("compact", admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC,
                    changelog))).all().get(WAIT_SECONDS, TimeUnit.SECONDS).values().iterator().next()
                    .get("cleanup.policy").value(), "Streams' changelog is a compacted topic");
        }
        // A new instance without local state: the store comes back from the changelog, counts continue.
        try (KafkaStreams second = streams(stateDirs.resolve("second"))) {
            second.start();
            produceLines(200, 100, expected);
            awaitCounts(expected);
        }
    }

    private static KafkaStreams streams(Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return new KafkaStreams(builder.build(), props);
    }

    /** Lines {@code first..first+count-1}; line i holds words i % 6, (i / 6) % 6 and "cairn". */
    private static void produceLines(int first, int count, Map<String, Long> expected) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
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

    /** Reads the output from the start until each word's latest count is the expected one. */
    private static void awaitCounts(Map<String, Long> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, Long> latest = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!latest.equals(expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(record.key(), record.value());
                }
            }
        }
        assertTrue(latest.equals(expected), "counts " + latest + ", expected " + expected);
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()));
    }
}
