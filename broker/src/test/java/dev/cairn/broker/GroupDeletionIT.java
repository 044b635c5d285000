package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteGroups and OffsetDelete (issue 19) through kafka-clients 4.4's Admin, the calls behind
 * {@code kafka-consumer-groups --delete} and {@code --delete-offsets}: a group with a live member is refused
 * (GroupNotEmpty; GroupSubscribedToTopic for the offsets of a topic it consumes, while those of another topic go),
 * an empty group's offsets are deleted from every partition, and a group that is gone is GroupIdNotFound.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GroupDeletionIT {
    private static final String CONSUMED = "deletion-consumed";
    private static final String OTHER = "deletion-other";
    private static final long WAIT_SECONDS = 60;

    @TempDir
    static Path dataDir;
    private static BrokerFixture broker;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerFixture.start(dataDir, Map.of("group.initial.rebalance.delay.ms", "0"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap()));
        admin.createTopics(List.of(new NewTopic(CONSUMED, 3, (short) 1), new NewTopic(OTHER, 2, (short) 1)))
                .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (admin != null) {
            admin.close();
        }
        broker.close();
    }

    @Test
    void aLiveGroupIsRefusedAndAnEmptyGroupsOffsetsAreDeletedEverywhere() throws Exception {
        String group = "deleted-group";
        Map<TopicPartition, OffsetAndMetadata> commits = Map.of(
                new TopicPartition(CONSUMED, 0), new OffsetAndMetadata(5),
                new TopicPartition(CONSUMED, 2), new OffsetAndMetadata(7),
                new TopicPartition(OTHER, 1), new OffsetAndMetadata(3));
        try (KafkaConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of(CONSUMED));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100));
            }
            assertEquals(3, consumer.assignment().size(), "the member owns the consumed topic's partitions");
            consumer.commitSync(commits, Duration.ofSeconds(WAIT_SECONDS));

            assertInstanceOf(GroupNotEmptyException.class, failure(() -> admin.deleteConsumerGroups(List.of(group))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS)));
            assertInstanceOf(GroupSubscribedToTopicException.class, failure(() -> admin.deleteConsumerGroupOffsets(
                    group, Set.of(new TopicPartition(CONSUMED, 0))).all().get(WAIT_SECONDS, TimeUnit.SECONDS)));
            // Offsets of a topic the group does not consume may go while it runs.
            admin.deleteConsumerGroupOffsets(group, Set.of(new TopicPartition(OTHER, 1)))
                    .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(Set.of(new TopicPartition(CONSUMED, 0), new TopicPartition(CONSUMED, 2)),
                    committed(group).keySet());
        }
        // The consumer left: the group is empty, its offsets go from every partition.
        admin.deleteConsumerGroups(List.of(group)).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(Map.of(), committed(group));
        assertInstanceOf(GroupIdNotFoundException.class, failure(() -> admin.deleteConsumerGroups(List.of(group))
                .all().get(WAIT_SECONDS, TimeUnit.SECONDS)));
    }

    @Test
    void offsetsOfAnEmptyGroupAreDeletedPartitionByPartition() throws Exception {
        String group = "trimmed-group";
        try (KafkaConsumer<String, String> consumer = consumer(group)) {
            consumer.commitSync(Map.of(new TopicPartition(CONSUMED, 1), new OffsetAndMetadata(11),
                    new TopicPartition(OTHER, 0), new OffsetAndMetadata(4)), Duration.ofSeconds(WAIT_SECONDS));
        }
        admin.deleteConsumerGroupOffsets(group, Set.of(new TopicPartition(CONSUMED, 1)))
                .all().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(Map.of(new TopicPartition(OTHER, 0), new OffsetAndMetadata(4)), committed(group));
        assertInstanceOf(GroupIdNotFoundException.class, failure(() -> admin.deleteConsumerGroupOffsets(
                "never-committed", Set.of(new TopicPartition(CONSUMED, 1))).all()
                .get(WAIT_SECONDS, TimeUnit.SECONDS)));
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(WAIT_SECONDS, TimeUnit.SECONDS);
        offsets.values().removeIf(offset -> offset == null);
        return Map.copyOf(offsets);
    }

    private static KafkaConsumer<String, String> consumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props);
    }

    private interface Call {
        void run() throws Exception;
    }

    /** The cause of the ExecutionException the call throws. */
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
