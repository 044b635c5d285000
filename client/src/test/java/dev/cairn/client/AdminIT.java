package dev.cairn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.BrokerFixture;
import dev.cairn.protocol.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The admin client against an in-process broker: topic lifecycle, offsets and the cluster description. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminIT {
    /** How long a test waits for a deletion to become visible in metadata. */
    private static final long DELETE_VISIBLE_TIMEOUT_MS = 30_000;
    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        broker.close();
    }

    private static CairnAdmin admin() {
        return CairnAdmin.create(AdminConfig.builder().bootstrapServers(broker.bootstrap()).build());
    }

    @Test
    void consumerGroupOffsetsAreAlteredAndListed() {
        try (CairnAdmin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("group-offsets", 3, 1)));
            assertEquals(Map.of(), admin.listConsumerGroupOffsets("rewind-me"), "nothing committed yet");
            Map<TopicPartition, Long> committed = Map.of(new TopicPartition("group-offsets", 0), 7L,
                    new TopicPartition("group-offsets", 2), 0L);
            admin.alterConsumerGroupOffsets("rewind-me", committed);
            assertEquals(committed, admin.listConsumerGroupOffsets("rewind-me"));
            admin.alterConsumerGroupOffsets("rewind-me", Map.of(new TopicPartition("group-offsets", 0), 3L));
            assertEquals(3L, admin.listConsumerGroupOffsets("rewind-me").get(new TopicPartition("group-offsets", 0)));
            assertEquals(Map.of(), admin.listConsumerGroupOffsets("another-group"), "groups are kept apart");
        }
    }

    @Test
    void createDescribeListAndDeleteTopics() throws Exception {
        try (CairnAdmin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("admin-topic", 4, 1)));
            TopicDescription described = admin.describeTopics(List.of("admin-topic")).get("admin-topic");
            assertEquals(4, described.partitions().size());
            assertTrue(admin.listTopics().contains("admin-topic"));

            CairnApiException exists = assertThrows(CairnApiException.class,
                    () -> admin.createTopics(List.of(new NewTopic("admin-topic", 4, 1))));
            assertEquals(ErrorCode.TOPIC_ALREADY_EXISTS, exists.errorCode());
            assertFalse(exists.isRetriable());

            admin.deleteTopics(List.of("admin-topic"));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DELETE_VISIBLE_TIMEOUT_MS);
            while (admin.listTopics().contains("admin-topic") && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertFalse(admin.listTopics().contains("admin-topic"), "deleted topic still listed");

            // The controller's answer is final: retried, it would end as a retriable error after the timeout.
            CairnApiException unknown = assertThrows(CairnApiException.class,
                    () -> admin.deleteTopics(List.of("admin-no-such-topic")));
            assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, unknown.errorCode());
            assertFalse(unknown.isRetriable());
        }
    }

    @Test
    void createPartitionsGrowsTopicsAndRefusesWhatKafkaRefuses() {
        try (CairnAdmin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("admin-growing", 2, 1), new NewTopic("admin-growing-too", 1, 1)));

            admin.createPartitions(Map.of("admin-growing", 5, "admin-growing-too", 2));

            Map<String, TopicDescription> described = admin.describeTopics(List.of("admin-growing",
                    "admin-growing-too"));
            assertEquals(5, described.get("admin-growing").partitions().size());
            assertEquals(2, described.get("admin-growing-too").partitions().size());
            assertTrue(described.get("admin-growing").partitions().stream().allMatch(p -> p.leader() >= 0),
                    "every partition has a leader once createPartitions returns: " + described);
            CairnApiException decrease = assertThrows(CairnApiException.class,
                    () -> admin.createPartitions(Map.of("admin-growing", 3)));
            assertEquals(ErrorCode.INVALID_PARTITIONS, decrease.errorCode());
            assertFalse(decrease.isRetriable());
            assertTrue(decrease.getMessage().contains("currently has 5 partition(s); 3 would not be an increase"),
                    decrease.getMessage());
            assertEquals(ErrorCode.INVALID_PARTITIONS, assertThrows(CairnApiException.class,
                    () -> admin.createPartitions(Map.of("admin-growing", 5))).errorCode());
            CairnApiException unknown = assertThrows(CairnApiException.class,
                    () -> admin.createPartitions(Map.of("admin-no-such-topic", 3)));
            assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, unknown.errorCode());
            // Final, not retried: a retried error would end, after default.api.timeout.ms, as a retriable one.
            assertFalse(unknown.isRetriable(), "the controller's answer is final");
        }
    }

    @Test
    void listOffsetsAndDescribeCluster() throws Exception {
        TopicPartition partition = new TopicPartition("admin-offsets", 0);
        try (CairnAdmin admin = admin();
             CairnProducer producer = CairnProducer.create(ProducerConfig.builder()
                     .bootstrapServers(broker.bootstrap()).build())) {
            admin.createTopics(List.of(new NewTopic("admin-offsets", 1, 1)));
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord("admin-offsets", 0, null, null, new byte[] {(byte) i}, List.of()));
            }
            producer.flush(Duration.ofSeconds(30));
            assertEquals(Map.of(partition, 0L), admin.listOffsets(Map.of(partition, CairnAdmin.EARLIEST)));
            assertEquals(Map.of(partition, 10L), admin.listOffsets(Map.of(partition, CairnAdmin.LATEST)));

            ClusterDescription cluster = admin.describeCluster();
            assertNotNull(cluster.clusterId());
            assertEquals(1, cluster.brokers().size());
            assertEquals(broker.bootstrap(), cluster.brokers().get(0).host() + ":" + cluster.brokers().get(0).port());
        }
    }
}
