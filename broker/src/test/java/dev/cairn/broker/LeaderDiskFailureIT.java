package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk under a partition leader's log fails (every write to the partition's directory on that broker fails from
 * then on): the partition goes offline on that broker, leadership moves to a healthy replica, and a producer with the
 * Java client's defaults gets every record acknowledged, each readable exactly once, as with Kafka, whose controller
 * moves leaders off a failed log directory. Before, Raft kept the offline replica leading and the partition answered
 * nothing until that broker restarted.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LeaderDiskFailureIT {
    private static final String TOPIC = "disk";
    private static final int RECORDS_BEFORE = 100;
    private static final int RECORDS_AFTER = 100;
    /** Bounds each acknowledgement after the failure: well inside the producer's own delivery timeout (120 s). */
    private static final long ACK_WAIT_S = 90;
    /** How long the brokers' apply threads may take to end once the brokers are closed. */
    private static final long APPLY_THREADS_END_WAIT_S = 30;

    @TempDir
    Path dir;

    /**
     * Segment writes fail on the leader: Ratis stops that replica's Raft log for the group, its leader thread ends and
     * another replica is elected; the partition goes offline there at once (PartitionStateMachine.notifyLogFailed).
     * What this checks is what clients see: every record acknowledged and read back once.
     */
    @Test
    void leadershipLeavesAReplicaWhoseSegmentWritesFail() throws Exception {
        leadershipLeavesAFailedDisk(Map.of(), disk -> disk.failWritesIn(TOPIC + "-0"));
    }

    /**
     * Only fsyncs fail, and they run as entries apply (log.flush.interval.ms): the partition goes offline while its
     * Raft log goes on, so Raft alone kept that replica leading; it now hands leadership over
     * (LeadershipBalancer.handOverOfflineLeaderships).
     */
    @Test
    void leadershipLeavesAReplicaThatWentOfflineApplyingAnEntry() throws Exception {
        leadershipLeavesAFailedDisk(Map.of("log.flush.interval.ms", "1"), disk -> disk.failForcesIn(TOPIC + "-0"));
    }

    private void leadershipLeavesAFailedDisk(Map<String, String> settings, Consumer<FailingFileIo> failure)
            throws Exception {
        FailingFileIo[] disks = {new FailingFileIo(), new FailingFileIo(), new FailingFileIo()};
        Set<Thread> applyThreadsBefore = applyThreads();
        try (InProcessCluster cluster = InProcessCluster.start(3, dir, settings, nodeId -> disks[nodeId - 1]);
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> producer = producer(cluster.bootstrap())) {
                awaitAll(send(producer, 0, RECORDS_BEFORE));
                int failed = leader(admin);
                failure.accept(disks[failed - 1]);

                for (int id = RECORDS_BEFORE; id < RECORDS_BEFORE + RECORDS_AFTER; id++) {
                    // One at a time: each is its own Raft entry, so the failing replica has entries to apply.
                    awaitAll(send(producer, id, 1));
                }

                assertTrue(disks[failed - 1].failures() > 0, "broker " + failed + "'s disk refused changes");
                assertNotEquals(failed, leader(admin), "leadership left broker " + failed);
            }
            assertEquals(RECORDS_BEFORE + RECORDS_AFTER, readAll(cluster.bootstrap(), RECORDS_BEFORE + RECORDS_AFTER));
        }
        assertApplyThreadsEnd(applyThreadsBefore);
    }

    /** Ratis's apply threads (one per partition replica) running in this JVM. */
    private static Set<Thread> applyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().endsWith("-StateMachineUpdater"))
                .collect(Collectors.toSet());
    }

    /**
     * Closing the brokers ends their apply threads. One that an exception kept failing would retry forever, logging
     * each time: a failed snapshot at close did that, filling 18 GB of log in a few minutes.
     */
    private static void assertApplyThreadsEnd(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(APPLY_THREADS_END_WAIT_S);
        Set<Thread> left = applyThreads();
        left.removeAll(before);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
            left = applyThreads();
            left.removeAll(before);
        }
        assertEquals(Set.of(), left.stream().map(Thread::getName).collect(Collectors.toSet()),
                "apply threads still running after the brokers closed");
    }

    private static List<Future<RecordMetadata>> send(KafkaProducer<byte[], byte[]> producer, int first, int count) {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int id = first; id < first + count; id++) {
            acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, ByteBuffer.allocate(8).putLong(id).array())));
        }
        return acks;
    }

    private static void awaitAll(List<Future<RecordMetadata>> acks) throws Exception {
        for (Future<RecordMetadata> ack : acks) {
            ack.get(ACK_WAIT_S, TimeUnit.SECONDS);
        }
    }

    private static int leader(Admin admin) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(TOPIC);
        return description.partitions().get(0).leader().id();
    }

    /** Reads the partition from offset 0: offsets dense, ids 0.. in order, each once; returns how many. */
    private static int readAll(String bootstrap, int expected) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        int read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    assertEquals(read, record.offset(), "dense offsets");
                    assertEquals(read, ByteBuffer.wrap(record.value()).getLong(), "each record once, in order");
                    read++;
                }
            }
        }
        return read;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }
}
