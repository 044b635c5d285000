package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20, acceptance 2: a Kafka Streams 4.4 word count with {@code exactly_once_v2} on three broker processes at
 * RF=3 counts every word exactly as often as it was sent, although a broker and the Streams instance itself are
 * killed with SIGKILL during the run: what the killed instance had processed but not committed is aborted, and its
 * successor (same state directory, so the same transactional ids) processes it again, once.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class StreamsExactlyOnceIT {
    private static final String APPLICATION = "cairn-word-count-eos";
    private static final String INPUT = "lines-eos";
    private static final String OUTPUT = "word-counts-eos";
    private static final List<String> WORDS = List.of("raft", "kafka", "cairn", "log", "segment", "offset");
    private static final long WAIT_SECONDS = 180;
    /** How long the output is watched after the counts are reached, for a count that goes past them. */
    private static final long SETTLE_MS = 5_000;

    @TempDir
    Path dir;
    private BrokerProcessCluster cluster;
    private Process streams;

    @AfterEach
    void stop() throws InterruptedException {
        if (streams != null) {
            streams.destroyForcibly();
            streams.waitFor(30, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private String bootstrap() {
        return cluster.bootstrap();
    }

    @Test
    void wordCountIsExactThroughBrokerAndStreamsKills() throws Exception {
        startBrokers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(INPUT, 3, (short) 3), new NewTopic(OUTPUT, 3, (short) 3)))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = new HashMap<>();
        startStreams();
        produceLines(0, 150, expected);
        awaitExactCounts(expected);

        cluster.broker(1).kill();
        produceLines(150, 150, expected);
        streams.destroyForcibly();                                  // SIGKILL, mid-stream
        streams.waitFor(30, TimeUnit.SECONDS);
        produceLines(300, 150, expected);
        startStreams();
        cluster.broker(1).start();
        produceLines(450, 150, expected);
        Map<String, Long> counted = awaitExactCounts(expected);
        System.out.println("StreamsExactlyOnceIT: expected " + expected + ", counted " + counted);
    }

    private void startStreams() throws Exception {
        Path log = dir.resolve("streams.log");
        long from = Files.exists(log) ? Files.size(log) : 0;
        streams = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), ExactlyOnceWordCount.class.getName(), bootstrap(),
                APPLICATION, dir.resolve("streams-state").toString(), INPUT, OUTPUT)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            if (output.indexOf("\nRUNNING", (int) from) >= 0 || output.startsWith("RUNNING", (int) from)) {
                return;
            }
            assertTrue(streams.isAlive(), "the Streams process exited:\n" + output.substring((int) from));
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError("the Streams process did not reach RUNNING within " + WAIT_SECONDS + " s");
    }

    private void startBrokers() throws Exception {
        cluster = BrokerProcessCluster.onLoopback(dir, 3, Map.of("default.replication.factor", "3",
                "group.initial.rebalance.delay.ms", "0"));
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

    /**
     * Reads the committed output until every word's latest count is the expected one, then a while longer: exactly
     * once means no count ever goes past it (a count read twice would). Returns the counts.
     */
    private Map<String, Long> awaitExactCounts(Map<String, Long> expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, Long> latest = new HashMap<>();
        Map<String, Long> highest = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1),
                    new TopicPartition(OUTPUT, 2)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            long settleUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, settleUntil)) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(record.key(), record.value());
                    highest.merge(record.key(), record.value(), Math::max);
                }
                if (settleUntil == Long.MAX_VALUE && latest.equals(expected)) {
                    settleUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MS);
                }
            }
        }
        assertEquals(expected, latest, "the committed counts");
        assertEquals(expected, highest, "no committed count ever went past the number of times its word was sent");
        return latest;
    }
}
