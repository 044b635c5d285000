package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic configs changed at run time (issue 19: IncrementalAlterConfigs, AlterConfigs) on three brokers at RF=3,
 * through kafka-clients 4.4's Admin as {@code kafka-configs --alter} uses it: DescribeConfigs reports the new values
 * as the topic's own; every replica's log switches at the same position (a smaller segment.bytes rolls the three
 * logs into the same segments); a producer meets the new rules at once (a compacted topic refuses records without a
 * key); a restarted replica keeps the configs; deleted configs fall back to the inherited values; bad values and
 * broker configs are refused with Kafka's errors.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TopicConfigAlterIT {
    private static final String TOPIC = "reconfigured";
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
    void configsChangeOnEveryReplicaAtOneLogPositionAndSurviveARestart() throws Exception {
        cluster = InProcessCluster.start(3, dir, Map.of("message.max.bytes", "8192",
                "auto.leader.rebalance.enable", "false", "auto.create.topics.enable", "false"));
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("retention.ms",
                    "3600000")))).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
            produce(0, 100, "k");
            assertEquals(List.of(0L), segments(1), "one segment at the broker's 1 GiB segment.bytes");

            alter(admin, topic, List.of(set("segment.bytes", "16384"), delete("retention.ms"),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)));
            Config described = describeOnceApplied(admin, topic, "segment.bytes", "16384");
            assertOwn(described, "segment.bytes", "16384");
            assertOwn(described, "cleanup.policy", "delete,compact");
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, described.get("retention.ms").source());

            // The compacted topic's rule holds as soon as the leader's metadata has the change: a record needs a key.
            awaitTrue(() -> keylessRecordsRefused(), () -> "a keyless record refused on the compacted topic");
            // Partition leaders carry the change into the partition's Raft group; the logs then roll at 16 KiB.
            awaitTrue(() -> {
                produce(nextOffset, 50, "k");
                return segments(1).size() > 2;
            }, () -> "the logs roll at the new segment.bytes: " + segments(1));
            awaitTrue(() -> sameSegmentsOnEveryReplica(), () -> "identical segments on the three replicas: "
                    + segments(1) + " " + segments(2) + " " + segments(3));

            // A restarted replica replays or restores the configs and keeps rolling with the others.
            cluster.stop(3);
            produce(nextOffset, 200, "k");
            cluster.restart(3);
            produce(nextOffset, 200, "k");
            awaitTrue(this::sameSegmentsOnEveryReplica, () -> "identical segments after broker 3's restart: "
                    + segments(1) + " " + segments(3));
            assertOwn(describe(admin, topic), "segment.bytes", "16384");

            // Deleting configs brings back the inherited values (AlterConfigs, which Admin 4.x no longer sends, is
            // covered by AlterConfigsHandlersTest).
            alter(admin, topic, List.of(set("segment.ms", "600000"), delete("segment.bytes"),
                    delete("cleanup.policy")));
            Config afterReplace = describeOnceApplied(admin, topic, "segment.ms", "600000");
            assertOwn(afterReplace, "segment.ms", "600000");
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, afterReplace.get("segment.bytes").source());
            assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, afterReplace.get("cleanup.policy").source());
            awaitTrue(() -> !keylessRecordsRefused(), () -> "a keyless record accepted once compaction is off");

            // Kafka's errors for what cannot change.
            assertInstanceOf(InvalidConfigurationException.class, failure(() -> alter(admin, topic,
                    List.of(set("segment.bytes", "12")))));
            assertInstanceOf(InvalidConfigurationException.class, failure(() -> alter(admin, topic,
                    List.of(set("min.insync.replicaz", "2")))));
            assertInstanceOf(InvalidRequestException.class, failure(() -> alter(admin,
                    new ConfigResource(ConfigResource.Type.BROKER, "1"), List.of(set("log.retention.ms", "5")))));
            assertOwn(describe(admin, topic), "segment.ms", "600000");
        }
    }

    private long nextOffset;

    private boolean keylessRecordsRefused() throws Exception {
        try {
            produce(nextOffset, 1, null);
            return false;
        } catch (InvalidRecordException e) {
            return true;
        }
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    private static AlterConfigOp delete(String name) {
        return new AlterConfigOp(new ConfigEntry(name, ""), AlterConfigOp.OpType.DELETE);
    }

    private static void alter(Admin admin, ConfigResource resource, Collection<AlterConfigOp> ops) throws Exception {
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static Config describe(Admin admin, ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource)).all().get(WAIT_SECONDS, TimeUnit.SECONDS).get(resource);
    }

    /**
     * Describes the topic until {@code name} has {@code value}: Admin sends DescribeConfigs to any broker, and a
     * broker other than the one that took the change applies the committed change a moment later (as in Kafka,
     * whose brokers follow the controller's metadata log). The broker that took it answers only once it applied it.
     */
    private static Config describeOnceApplied(Admin admin, ConfigResource resource, String name, String value)
            throws Exception {
        Config[] last = new Config[1];
        awaitTrue(() -> {
            last[0] = describe(admin, resource);
            return value.equals(last[0].get(name).value());
        }, () -> name + " described as " + value + ", last seen " + last[0].get(name));
        return last[0];
    }

    private static void assertOwn(Config config, String name, String value) {
        assertEquals(value, config.get(name).value(), name);
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, config.get(name).source(), name);
    }

    /** The base offsets of broker {@code node}'s segments of the partition, in order. */
    private List<Long> segments(int node) {
        Path partition = cluster.config(node).dataDir().resolve("logs").resolve(TOPIC + "-0");
        try (Stream<Path> files = Files.list(partition)) {
            return files.map(p -> p.getFileName().toString()).filter(name -> name.endsWith(".log"))
                    .map(name -> Long.parseLong(name.substring(0, name.length() - ".log".length()))).sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private boolean sameSegmentsOnEveryReplica() {
        List<Long> first = segments(1);
        return first.size() > 2 && first.equals(segments(2)) && first.equals(segments(3));
    }

    /** Produces {@code count} records to partition 0, with {@code key} (or none), and waits for every ack. */
    private void produce(long first, int count, String key) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "1024");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "45000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (long i = first; i < first + count; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, 0, key, "record-" + i + "-" + "x".repeat(200))));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            try {
                ack.get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        nextOffset = first + count;
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

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(Condition condition, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.holds()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what.get());
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }
}
