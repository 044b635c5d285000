package dev.cairn.broker;

import static dev.cairn.broker.KafkaTool.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.tools.reassign.ReassignPartitionsCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition reassignment (issue 19) with Apache Kafka 4.4's {@code kafka-reassign-partitions} main class: a partition
 * on brokers 1-3 moves to 4, 2, 3 (generate, execute, verify) while a producer with acks=all writes to it. The
 * new replica catches up through Raft (snapshots included, the partition's Raft log being purged meanwhile), broker 1,
 * the leader, hands leadership to a remaining replica, leaves the group and deletes its copy, and every acknowledged
 * record reads back from the new replica set.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ReassignPartitionsIT {
    private static final String TOPIC = "moving";
    private static final long WAIT_SECONDS = 90;
    /** Records written before the move starts, so the new replica has a log to catch up with. */
    private static final int RECORDS_BEFORE = 6_000;
    /** The most records the producer writes, which bounds the test's disk and open files if a move is slow. */
    private static final int PRODUCED_MAX = 100_000;
    /** Records produced and checked after a move (and after restarts), numbered from these. */
    private static final int PRODUCED_AFTER = 300;
    private static final int AFTER_MOVE = 1_000_000;
    private static final int AFTER_RESTARTS = 2_000_000;
    /** Makes each record ~200 bytes, so the records before the move pass the snapshot interval (Raft log purged). */
    private static final String PADDING = " " + "x".repeat(200);

    @TempDir
    Path dir;
    private InProcessCluster cluster;

    @BeforeEach
    void installExit() {
        KafkaTool.install();
    }

    @AfterEach
    void stop() throws IOException {
        KafkaTool.uninstall();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aReplicaMovesToAFourthBrokerWhileAProducerWrites() throws Exception {
        cluster = InProcessCluster.start(4, dir, Map.of("auto.create.topics.enable", "false",
                "log.segment.bytes", "262144", "message.max.bytes", "16384",
                "raft.snapshot.interval.bytes", "1048576",
                "auto.leader.rebalance.enable", "true", "leader.imbalance.check.interval.seconds", "1"));
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            // Broker 1, which the move takes the replica from, leads: it must hand leadership over before leaving.
            awaitTrue(() -> leader(admin) == 1, "the preferred replica, broker 1, leads");
            BackgroundProducer background = new BackgroundProducer().start(RECORDS_BEFORE);
            Set<Integer> acknowledged = background.acknowledged;

            Path topics = Files.writeString(dir.resolve("topics.json"),
                    "{\"version\":1,\"topics\":[{\"topic\":\"" + TOPIC + "\"}]}");
            KafkaTool.ToolRun generated = run(ReassignPartitionsCommand::main, "--bootstrap-server",
                    cluster.bootstrap(), "--topics-to-move-json-file", topics.toString(), "--broker-list", "2,3,4",
                    "--generate");
            assertEquals(0, generated.exitCode(), generated.toString());
            assertTrue(generated.out().contains("Current partition replica assignment")
                    && generated.out().contains("\"replicas\":[1,2,3]")
                    && generated.out().contains("Proposed partition reassignment configuration"), generated.out());

            Path plan = Files.writeString(dir.resolve("plan.json"), "{\"version\":1,\"partitions\":[{\"topic\":\""
                    + TOPIC + "\",\"partition\":0,\"replicas\":[4,2,3]}]}");
            KafkaTool.ToolRun executed = run(ReassignPartitionsCommand::main, "--bootstrap-server",
                    cluster.bootstrap(), "--reassignment-json-file", plan.toString(), "--execute");
            assertEquals(0, executed.exitCode(), executed.toString());
            assertTrue(executed.out().contains("Successfully started partition reassignment"), executed.out());

            awaitTrue(() -> verified(plan), "kafka-reassign-partitions --verify reports the move completed");
            background.stop();
            produceNow(acknowledged, AFTER_MOVE, "after the move");

            TopicDescription described = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS).get(TOPIC);
            assertEquals(List.of(4, 2, 3), described.partitions().get(0).replicas().stream().map(Node::id).toList());
            assertTrue(admin.listPartitionReassignments().reassignments().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .isEmpty());
            awaitTrue(() -> cluster.broker(1).replicaRaftState(TOPIC, 0).isEmpty() && !Files.exists(
                    cluster.config(1).dataDir().resolve("logs").resolve(TOPIC + "-0")),
                    "broker 1 removed its replica and its files");
            awaitTrue(() -> cluster.broker(4).replicaRaftState(TOPIC, 0).map(state -> state.logEndOffset()
                    >= acknowledged.size()).orElse(false), "broker 4's replica holds every acknowledged record");

            System.out.println("broker 4's replica: " + cluster.broker(4).replicaRaftState(TOPIC, 0).orElseThrow());
            Set<Integer> read = readAll();
            Set<Integer> lost = new TreeSet<>(acknowledged);
            lost.removeAll(read);
            assertTrue(lost.isEmpty(), lost.size() + " acknowledged records lost, e.g. " + lost.stream().limit(10)
                    .toList());

            // Nothing is moving: cancelling answers as Kafka does.
            ExecutionException none = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> admin.alterPartitionReassignments(Map.of(tp, Optional.<NewPartitionReassignment>empty()))
                            .all().get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertInstanceOf(NoReassignmentInProgressException.class, none.getCause());
        }
    }

    /**
     * A broker that is down while its replica is moved away removes its copy once it is back, also when it catches up
     * on metadata from a snapshot taken after the move completed (it then never sees the completion as a change).
     */
    @Test
    void aBrokerDownDuringTheMoveRemovesItsCopyWhenBack() throws Exception {
        cluster = InProcessCluster.start(4, dir, Map.of("auto.create.topics.enable", "false",
                "raft.snapshot.interval.entries", "20", "auto.leader.rebalance.enable", "false"));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            BackgroundProducer background = new BackgroundProducer().start(500);
            Set<Integer> acknowledged = background.acknowledged;
            cluster.stop(1);
            admin.alterPartitionReassignments(Map.of(new TopicPartition(TOPIC, 0),
                    Optional.of(new NewPartitionReassignment(List.of(4, 2, 3))))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            awaitTrue(() -> replicas(admin).equals(List.of(4, 2, 3)), "the move completes without broker 1");
            background.stop();
            // Enough metadata entries that the metadata group snapshots and purges past the completion.
            for (int i = 0; i < 10; i++) {
                admin.createTopics(List.of(new NewTopic("filler-" + i, 1, (short) 3))).all()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            cluster.restart(1);
            awaitTrue(() -> cluster.broker(1).replicaRaftState(TOPIC, 0).isEmpty() && !Files.exists(
                    cluster.config(1).dataDir().resolve("logs").resolve(TOPIC + "-0")),
                    "broker 1 removed its replica and its files after its restart");
            Set<Integer> lost = new TreeSet<>(acknowledged);
            lost.removeAll(readAll());
            assertTrue(lost.isEmpty(), lost.size() + " acknowledged records lost");
        }
    }

    /**
     * The user story: a cluster of three grows by a fourth broker, which is not in their raft.voters; it joins the
     * metadata group, registers, and a partition moves onto it. It survives its own restart and an original broker's.
     */
    @Test
    void aBrokerAddedToARunningClusterTakesAReplica() throws Exception {
        Map<String, String> settings = Map.of("auto.create.topics.enable", "false");
        cluster = InProcessCluster.start(3, dir, settings);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            BackgroundProducer background = new BackgroundProducer().start(500);
            Set<Integer> acknowledged = background.acknowledged;

            cluster.addBroker(dir, settings);
            awaitTrue(() -> brokerCount(admin) == 4, "the fourth broker registered");
            admin.alterPartitionReassignments(Map.of(new TopicPartition(TOPIC, 0),
                    Optional.of(new NewPartitionReassignment(List.of(4, 2, 3))))).all()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            awaitTrue(() -> replicas(admin).equals(List.of(4, 2, 3)), "the move onto the new broker completes");
            background.stop();
            produceNow(acknowledged, AFTER_MOVE, "after the move");

            cluster.stop(4);
            cluster.restart(4);
            cluster.stop(1);
            cluster.restart(1);
            produceNow(acknowledged, AFTER_RESTARTS, "after the restarts");
            awaitTrue(() -> cluster.broker(4).replicaRaftState(TOPIC, 0).map(state -> state.logEndOffset()
                    >= acknowledged.size()).orElse(false), "broker 4's replica holds every acknowledged record");
            Set<Integer> lost = new TreeSet<>(acknowledged);
            lost.removeAll(readAll());
            assertTrue(lost.isEmpty(), lost.size() + " acknowledged records lost");
        }
    }

    private static int brokerCount(Admin admin) {
        try {
            return admin.describeCluster().nodes().get(WAIT_SECONDS, TimeUnit.SECONDS).size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static List<Integer> replicas(Admin admin) {
        try {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .get(TOPIC).partitions().get(0).replicas().stream().map(Node::id).toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    private static int leader(Admin admin) {
        try {
            Node leader = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .get(TOPIC).partitions().get(0).leader();
            return leader == null ? -1 : leader.id();
        } catch (Exception e) {
            return -1;
        }
    }

    private boolean verified(Path plan) {
        try {
            KafkaTool.ToolRun verify = run(ReassignPartitionsCommand::main, "--bootstrap-server",
                    cluster.bootstrap(), "--reassignment-json-file", plan.toString(), "--verify");
            return verify.exitCode() == 0 && verify.out().contains("Reassignment of partition " + TOPIC
                    + "-0 is completed");
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Produces {@link #PRODUCED_AFTER} records numbered from {@code first} with a fresh producer and requires every one
     * acknowledged (the background producer stops at {@link #PRODUCED_MAX}, so it cannot show progress by itself).
     */
    private void produceNow(Set<Integer> acknowledged, int first, String when) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> acks =
                new java.util.ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = first; i < first + PRODUCED_AFTER; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, i + PADDING)));
            }
            producer.flush();
            for (int i = 0; i < acks.size(); i++) {
                try {
                    acks.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    acknowledged.add(first + i);
                } catch (ExecutionException e) {
                    throw new AssertionError("record " + (first + i) + " produced " + when + " failed", e);
                }
            }
        }
    }

    /** The producer that writes while a move runs, and the values it had acknowledged. */
    private final class BackgroundProducer {
        private final Set<Integer> acknowledged = new ConcurrentSkipListSet<>();
        private final AtomicBoolean producing = new AtomicBoolean(true);
        private final Thread thread = new Thread(() -> produce(acknowledged, producing), "reassign-it-producer");

        /** Starts it and waits for its first {@code firstAcknowledged} records to be acknowledged. */
        BackgroundProducer start(int firstAcknowledged) throws InterruptedException {
            thread.start();
            awaitTrue(() -> acknowledged.size() >= firstAcknowledged, "the first records acknowledged");
            return this;
        }

        void stop() throws InterruptedException {
            producing.set(false);
            thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
    }

    private void produce(Set<Integer> acknowledged, AtomicBoolean producing) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; producing.get() && i < PRODUCED_MAX; i++) {
                int value = i;
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value + PADDING), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.add(value);
                    }
                });
                if (i % 100 == 99) {
                    producer.flush();
                }
            }
            producer.flush();
        }
    }

    private Set<Integer> readAll() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Set<Integer> read = new TreeSet<>();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    read.add(Integer.parseInt(record.value().substring(0, record.value().indexOf(' '))));
                }
            }
        }
        return read;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(200);
        }
    }
}
