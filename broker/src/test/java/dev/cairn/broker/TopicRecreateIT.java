package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic deleted and created again under the same name is a new topic, as in Kafka: it starts empty, the deleted
 * topic's committed offsets are gone, commits to the new one are kept (the partition's offsets are stored beside the
 * Raft index they were applied at, and the new partition's Raft log starts again from its beginning), and all of that
 * still holds after a kill -9 and restart, which replays the metadata log through the old topic's creation and
 * deletion (a clean stop snapshots the metadata group; a crash does not).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TopicRecreateIT {
    private static final String TOPIC = "recreated";
    private static final String GROUP = "recreate-group";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @TempDir
    Path dir;

    @Test
    void recreatedTopicStartsEmptyAndKeepsItsOwnCommitsAcrossCrash() throws Exception {
        String bootstrap = "127.0.0.1:" + BrokerFixture.freePort();
        Map<String, String> settings = Map.of("raft.listener", "127.0.0.1:" + BrokerFixture.freePort(),
                "listeners", bootstrap, "auto.create.topics.enable", "false",
                "log.dirs", dir.resolve("data").toString());
        try (BrokerProcess broker = new BrokerProcess(settings, dir.resolve("broker.log"))) {
            broker.start();
            try (Admin admin = admin(bootstrap)) {
                create(admin);
                produce(bootstrap, "old", 20);
                admin.alterConsumerGroupOffsets(GROUP, Map.of(P0, new OffsetAndMetadata(15), P1,
                        new OffsetAndMetadata(12))).all().get(60, TimeUnit.SECONDS);
                assertEquals(Map.of(P0, 15L, P1, 12L), committed(admin));

                admin.deleteTopics(List.of(TOPIC)).all().get(60, TimeUnit.SECONDS);
                waitFor(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC), 60);
                create(admin);
                assertEquals(Map.of(), committed(admin), "the deleted topic's committed offsets are gone");
                assertEquals(List.of(), consumeAll(bootstrap), "the recreated topic starts empty");

                produce(bootstrap, "new", 3);
                admin.alterConsumerGroupOffsets(GROUP, Map.of(P0, new OffsetAndMetadata(2)))
                        .all().get(60, TimeUnit.SECONDS);
                assertEquals(Map.of(P0, 2L), committed(admin), "a commit to the recreated topic is kept");
            }
            broker.kill();
            broker.start();
            try (Admin admin = admin(bootstrap)) {
                waitFor(() -> admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(TOPIC).partitions().stream().allMatch(p -> p.leader() != null), 60);
                assertEquals(List.of("new-0", "new-1", "new-2", "new-0", "new-1", "new-2"), consumeAll(bootstrap),
                        "after a crash the recreated topic holds its own records only");
                assertEquals(Map.of(P0, 2L), committed(admin), "after a crash the commit to the recreated topic holds");
                admin.alterConsumerGroupOffsets(GROUP, Map.of(P1, new OffsetAndMetadata(1)))
                        .all().get(60, TimeUnit.SECONDS);
                assertEquals(Map.of(P0, 2L, P1, 1L), committed(admin), "commits after the crash are kept");
            }
        }
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    private static void create(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        waitFor(() -> admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(TOPIC).partitions().stream().allMatch(p -> p.leader() != null), 60);
    }

    private static Map<TopicPartition, Long> committed(Admin admin) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
        Map<TopicPartition, Long> result = new HashMap<>();
        offsets.forEach((tp, offset) -> {
            if (offset != null) {
                result.put(tp, offset.offset());
            }
        });
        return result;
    }

    /** {@code count} records "prefix-i" to each partition, partition 0 first. */
    private static void produce(String bootstrap, String prefix, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (TopicPartition tp : List.of(P0, P1)) {
                for (int i = 0; i < count; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, tp.partition(), null,
                            (prefix + "-" + i).getBytes(StandardCharsets.UTF_8))).get(60, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** Every record of both partitions, partition 0's first, read up to the end offsets taken at the start. */
    private static List<String> consumeAll(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            for (TopicPartition tp : List.of(P0, P1)) {
                consumer.assign(Set.of(tp));
                consumer.seekToBeginning(Set.of(tp));
                long end = consumer.endOffsets(Set.of(tp), Duration.ofSeconds(30)).get(tp);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (consumer.position(tp, Duration.ofSeconds(30)) < end) {
                    assertTrue(System.nanoTime() < deadline, "read " + tp + " to " + end + " within 60 s");
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        values.add(new String(record.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return values;
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitFor(Condition condition, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.holds()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within " + seconds + " s");
            Thread.sleep(100);
        }
    }
}
