package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' Admin.createPartitions (KIP-195; what {@code kafka-topics --alter --partitions} sends) against
 * one broker and against three: Kafka's errors for a decrease, the same count, an unknown topic and a bad
 * assignment; validateOnly changes nothing; after an increase every broker's Metadata shows the new partitions
 * with leaders and the topic's replication factor, kafka-clients produces to and consumes from them, and they
 * survive a broker restart.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CreatePartitionsIT {
    private static final long WAIT_SECONDS = 90;

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static Throwable failure(org.apache.kafka.common.KafkaFuture<?> future) {
        return assertThrows(ExecutionException.class, () -> future.get(WAIT_SECONDS, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void oneBrokerRefusesWhatKafkaRefusesGrowsTheTopicAndKeepsItAcrossARestart() throws Exception {
        cluster = InProcessCluster.start(1, dir, Map.of());
        String topic = "grows";
        try (Admin admin = admin(cluster.bootstrap())) {
            get(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all());

            Throwable decrease = failure(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(1))).all());
            assertInstanceOf(InvalidPartitionsException.class, decrease);
            assertEquals("The topic grows currently has 2 partition(s); 1 would not be an increase.",
                    decrease.getMessage());
            Throwable same = failure(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all());
            assertInstanceOf(InvalidPartitionsException.class, same);
            assertInstanceOf(UnknownTopicOrPartitionException.class,
                    failure(admin.createPartitions(Map.of("missing", NewPartitions.increaseTo(3))).all()));
            assertInstanceOf(InvalidReplicaAssignmentException.class, failure(admin.createPartitions(Map.of(topic,
                    NewPartitions.increaseTo(3, List.of(List.of(7))))).all()), "broker 7 is not registered");
            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4)),
                    new CreatePartitionsOptions().validateOnly(true)).all());
            assertEquals(2, describe(admin, topic).partitions().size(), "validateOnly added nothing");

            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all());
            awaitPartitionsWithLeaders(admin, topic, 4, 1);
        }
        Map<Integer, String> written = produceToEachPartition(topic, 4, "before-restart");
        assertEquals(written, consumeAll(topic, 4, written.size()));

        cluster.stop(1);
        cluster.restart(1);

        try (Admin admin = admin(cluster.bootstrap())) {
            awaitPartitionsWithLeaders(admin, topic, 4, 1);
        }
        for (int p = 2; p < 4; p++) {
            assertTrue(cluster.broker(1).replicaRaftState(topic, p).isPresent(), "partition " + p + " hosted");
        }
        Map<Integer, String> read = consumeAll(topic, 4, written.size());
        assertEquals(written, read, "records in the added partitions survive the restart");
    }

    @Test
    void threeBrokersReplicateTheNewPartitionsAndEveryBrokerServesThem() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("default.replication.factor", "3"));
        String topic = "grows-replicated";
        try (Admin admin = admin(cluster.bootstrap())) {
            get(admin.createTopics(List.of(new NewTopic(topic, 2, (short) 3))).all());
            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5))).all());
            // An explicit placement is accepted when it keeps the topic's replication factor, refused otherwise.
            assertInstanceOf(InvalidReplicaAssignmentException.class, failure(admin.createPartitions(Map.of(topic,
                    NewPartitions.increaseTo(6, List.of(List.of(3, 1))))).all()));
            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(6, List.of(List.of(3, 1, 2))))).all());
        }
        for (int nodeId = 1; nodeId <= 3; nodeId++) {
            // Each broker answers Metadata from its own copy of the metadata group's state.
            try (Admin admin = admin(cluster.config(nodeId).listener().toString())) {
                List<TopicPartitionInfo> partitions = awaitPartitionsWithLeaders(admin, topic, 6, 3);
                assertEquals(List.of(3, 1, 2), partitions.get(5).replicas().stream().map(Node::id).toList(),
                        "the explicit assignment, seen by broker " + nodeId);
            }
        }
        Map<Integer, String> written = produceToEachPartition(topic, 6, "first");
        assertEquals(written, consumeAll(topic, 6, written.size()));

        cluster.stop(2);
        Map<Integer, String> whileDown = produceToEachPartition(topic, 6, "while-2-is-down");
        cluster.restart(2);
        try (Admin admin = admin(cluster.config(2).listener().toString())) {
            awaitPartitionsWithLeaders(admin, topic, 6, 3);
        }
        awaitTrue(() -> {
            for (int p = 2; p < 6; p++) {
                if (cluster.broker(2).replicaRaftState(topic, p).map(s -> s.logEndOffset() < 2).orElse(true)) {
                    return false;
                }
            }
            return true;
        }, () -> "broker 2 hosts the added partitions again and caught up on them");
        Map<Integer, List<String>> expected = new HashMap<>();
        written.forEach((p, value) -> expected.computeIfAbsent(p, k -> new ArrayList<>()).add(value));
        whileDown.forEach((p, value) -> expected.computeIfAbsent(p, k -> new ArrayList<>()).add(value));
        assertEquals(expected, consumeAllValues(topic, 6, 12));
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    }

    /** Waits until the topic has {@code count} partitions, each with a leader and {@code replicas} replicas. */
    private static List<TopicPartitionInfo> awaitPartitionsWithLeaders(Admin admin, String topic, int count,
            int replicas) throws Exception {
        List<List<TopicPartitionInfo>> last = new ArrayList<>(List.of(List.of()));
        awaitTrue(() -> {
            try {
                List<TopicPartitionInfo> partitions = describe(admin, topic).partitions();
                last.set(0, partitions);
                return partitions.size() == count && partitions.stream()
                        .allMatch(p -> p.leader() != null && p.leader().id() >= 0 && p.replicas().size() == replicas);
            } catch (Exception e) {
                return false;
            }
        }, () -> topic + " with " + count + " led partitions of " + replicas + " replicas (last seen " + last + ")");
        return last.get(0);
    }

    /** Writes one record to each partition with kafka-clients (idempotent, acks=all) and returns the values. */
    private Map<Integer, String> produceToEachPartition(String topic, int partitions, String tag) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Map<Integer, String> values = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                String value = tag + "-" + p;
                values.put(p, value);
                acks.add(producer.send(new ProducerRecord<>(topic, p, null, value.getBytes(StandardCharsets.UTF_8))));
            }
            for (int p = 0; p < partitions; p++) {
                assertEquals(p, acks.get(p).get(WAIT_SECONDS, TimeUnit.SECONDS).partition());
            }
        }
        return values;
    }

    /** Reads every partition from the beginning until {@code total} records arrived; one value per partition. */
    private Map<Integer, String> consumeAll(String topic, int partitions, int total) throws Exception {
        Map<Integer, String> single = new HashMap<>();
        consumeAllValues(topic, partitions, total).forEach((p, values) -> {
            assertEquals(1, values.size(), "partition " + p + " holds " + values);
            single.put(p, values.get(0));
        });
        return single;
    }

    private Map<Integer, List<String>> consumeAllValues(String topic, int partitions, int total) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<Integer, List<String>> read = new HashMap<>();
        int[] count = {0};
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            awaitTrue(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    read.computeIfAbsent(record.partition(), k -> new ArrayList<>())
                            .add(new String(record.value(), StandardCharsets.UTF_8));
                    count[0]++;
                }
                return count[0] >= total;
            }, () -> total + " records from " + topic + " (read so far: " + read + ")");
        }
        Set<Integer> partitionsRead = new TreeSet<>(read.keySet());
        assertEquals(partitions, partitionsRead.size(), "partitions read: " + partitionsRead.stream()
                .map(String::valueOf).collect(Collectors.joining(",")));
        return read;
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, () -> "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }
}
