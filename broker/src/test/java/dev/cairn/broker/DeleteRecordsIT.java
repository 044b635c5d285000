package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.ReplicaRaftState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords (issue 19) on three brokers at RF=3 through kafka-clients 4.4's Admin ({@code kafka-delete-records}):
 * the low watermark moves on every replica, ListOffsets earliest follows it, a consumer from the beginning starts
 * there, an offset beyond the high watermark is refused, -1 deletes up to the high watermark, and a restarted
 * follower that becomes leader keeps the moved start.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DeleteRecordsIT {
    private static final String TOPIC = "trimmed";
    private static final int RECORDS = 600;
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
    void theLowWatermarkMovesOnEveryReplicaAndSurvivesALeaderChange() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("log.segment.bytes", "16384", "message.max.bytes", "8192",
                "auto.leader.rebalance.enable", "false", "auto.create.topics.enable", "false"));
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
            produce(0, RECORDS);

            long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(250))).lowWatermarks().get(tp)
                    .get(WAIT_SECONDS, TimeUnit.SECONDS).lowWatermark();
            assertEquals(250, low);
            assertEquals(250, earliest(admin, tp));
            awaitTrue(() -> allReplicasStartAt(250), "every replica's log starts at 250");
            assertEquals(250, firstConsumedOffset(), "a consumer from the beginning starts at the new start");
            // DescribeLogDirs (kafka-log-dirs): each broker reports its replica; the replicas are byte-identical.
            awaitTrue(() -> replicaSizes(admin).size() == 1 && replicaSizes(admin).iterator().next() > 0,
                    "three replicas of one size: " + replicaSizes(admin));
            assertInstanceOf(OffsetOutOfRangeException.class, failure(() -> admin.deleteRecords(
                    Map.of(tp, RecordsToDelete.beforeOffset(RECORDS + 1))).all().get(WAIT_SECONDS, TimeUnit.SECONDS)));

            // The preferred replica (the usual leader) goes; another leads, restored from its own log and snapshots.
            int preferred = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .get(TOPIC).partitions().get(0).replicas().get(0).id();
            int leader = preferred;
            cluster.stop(leader);
            awaitTrue(() -> leaderOrMinus(admin, tp) > 0 && leaderOrMinus(admin, tp) != leader, "a new leader");
            assertEquals(250, earliest(admin, tp));
            cluster.restart(leader);
            awaitTrue(() -> allReplicasStartAt(250), "the restarted replica starts at 250 too");

            // ElectLeaders (kafka-leader-election --election-type preferred): leadership goes back to the preferred
            // replica once it is in sync again; an unclean election is never needed under Raft.
            int before = leaderOrMinus(admin, tp);
            awaitTrue(() -> electedPreferred(admin, tp), () -> "a preferred election succeeds or is not needed, last: "
                    + lastElection);
            System.out.println("DeleteRecordsIT: leader " + before + " before the preferred election, preferred "
                    + preferred + ", outcome " + lastElection);
            awaitTrue(() -> leaderOrMinus(admin, tp) == preferred, "the preferred replica " + preferred + " leads");
            var unclean = admin.electLeaders(org.apache.kafka.common.ElectionType.UNCLEAN, java.util.Set.of(tp))
                    .partitions().get(WAIT_SECONDS, TimeUnit.SECONDS).get(tp);
            assertTrue(unclean.isPresent() && unclean.get()
                    instanceof org.apache.kafka.common.errors.ElectionNotNeededException, String.valueOf(unclean));

            produce(RECORDS, 10);
            long highWatermark = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                    .get(WAIT_SECONDS, TimeUnit.SECONDS).offset();
            assertEquals(RECORDS + 10, highWatermark);
            // -1 (RecordsToDelete.beforeOffset(-1)): up to the high watermark.
            assertEquals(highWatermark, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1)))
                    .lowWatermarks().get(tp).get(WAIT_SECONDS, TimeUnit.SECONDS).lowWatermark());
            awaitTrue(() -> allReplicasStartAt(highWatermark), "every replica empty below the high watermark");
        }
    }

    private static volatile String lastElection = "none yet";

    private static boolean electedPreferred(Admin admin, TopicPartition tp) {
        try {
            var outcome = admin.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, java.util.Set.of(tp))
                    .partitions().get(WAIT_SECONDS, TimeUnit.SECONDS).get(tp);
            lastElection = String.valueOf(outcome);
            return outcome.isEmpty()
                    || outcome.get() instanceof org.apache.kafka.common.errors.ElectionNotNeededException;
        } catch (Exception e) {
            lastElection = e.toString();
            return false;
        }
    }

    /** The distinct sizes the three brokers report for the partition's replica through DescribeLogDirs. */
    private static java.util.Set<Long> replicaSizes(Admin admin) {
        try {
            java.util.Set<Long> sizes = new java.util.HashSet<>();
            int reported = 0;
            for (var dirs : admin.describeLogDirs(List.of(1, 2, 3)).allDescriptions()
                    .get(WAIT_SECONDS, TimeUnit.SECONDS).values()) {
                for (var dir : dirs.values()) {
                    var replica = dir.replicaInfos().get(new TopicPartition(TOPIC, 0));
                    if (replica != null) {
                        sizes.add(replica.size());
                        reported++;
                    }
                }
            }
            return reported == 3 ? sizes : java.util.Set.of();
        } catch (Exception e) {
            return java.util.Set.of();
        }
    }

    private boolean allReplicasStartAt(long offset) {
        for (int node = 1; node <= 3; node++) {
            ReplicaRaftState state = cluster.broker(node).replicaRaftState(TOPIC, 0).orElse(null);
            if (state == null || state.logStartOffset() != offset) {
                return false;
            }
        }
        return true;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()));
    }

    private void produce(int first, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1024");
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

    private long earliest(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                .get(WAIT_SECONDS, TimeUnit.SECONDS).offset();
    }

    private long firstConsumedOffset() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    assertTrue(record.value().startsWith("record-" + record.offset() + "-"), record.value());
                    return record.offset();
                }
            }
        }
        throw new AssertionError("nothing consumed");
    }

    private static int leaderOf(Admin admin, TopicPartition tp) throws Exception {
        return admin.describeTopics(List.of(tp.topic())).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                .get(tp.topic()).partitions().get(tp.partition()).leader().id();
    }

    private static int leaderOrMinus(Admin admin, TopicPartition tp) {
        try {
            var leader = admin.describeTopics(List.of(tp.topic())).allTopicNames().get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .get(tp.topic()).partitions().get(tp.partition()).leader();
            return leader == null ? -1 : leader.id();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        awaitTrue(condition, () -> what);
    }

    private static void awaitTrue(BooleanSupplier condition, java.util.function.Supplier<String> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static Throwable failure(Call call) {
        try {
            call.run();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected the call to fail");
    }
}
