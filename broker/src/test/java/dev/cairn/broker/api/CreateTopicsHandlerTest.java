package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.CreateTopicsRequest;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableReplicaAssignment;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableTopic;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableTopicConfig;
import dev.cairn.protocol.message.CreateTopicsResponse;
import dev.cairn.protocol.message.CreateTopicsResponse.CreatableTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CreateTopics v2-4 (Admin.createTopics, kafka-protocol.md A.1 and "Admin routing"): Kafka's checks with their
 * exact error codes, validate-only, defaults for -1, explicit assignments, the supported configs, the controller
 * rule, and the answer waiting for the new partitions' leaders within the request's timeout.
 */
class CreateTopicsHandlerTest {
    private static final int DEFAULT_PARTITIONS = 3;
    private static final int DEFAULT_REPLICATION_FACTOR = 1;
    private static final int TIMEOUT_MS = 5_000;

    private final AtomicBoolean electLeaders = new AtomicBoolean(true);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final FakeMetadataService metadata = new FakeMetadataService(this::onMetadataChange).withBrokers(1, 2, 3)
            .withTopic("existing_topic", 1, 1);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong topicIds = new AtomicLong();
    private final CreateTopicsHandler handler = new CreateTopicsHandler(metadata, partitions,
            new TopicCreator(metadata, () -> new UUID(7, topicIds.incrementAndGet())), timer,
            System::currentTimeMillis, DEFAULT_PARTITIONS, DEFAULT_REPLICATION_FACTOR);

    /** As the partition groups would: every partition with a replica on node 1 gets it as its leader. */
    private void onMetadataChange(MetadataImage image) {
        if (!electLeaders.get()) {
            return;
        }
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                if (topic.replicas().get(p).contains(FakeReplicatedPartitions.LOCAL_NODE_ID)) {
                    partitions.leadLocally(new TopicPartition(topic.name(), p));
                }
            }
        }
    }

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private static Struct topic(String name, int numPartitions, int replicationFactor) {
        return new Struct(CreatableTopic.SCHEMA).set(CreatableTopic.NAME, name)
                .set(CreatableTopic.NUM_PARTITIONS, numPartitions)
                .set(CreatableTopic.REPLICATION_FACTOR, (short) replicationFactor)
                .set(CreatableTopic.ASSIGNMENTS, List.of())
                .set(CreatableTopic.CONFIGS, List.of());
    }

    private static Struct withConfig(Struct topic, String name, String value) {
        List<Struct> configs = new ArrayList<>(topic.get(CreatableTopic.CONFIGS));
        configs.add(new Struct(CreatableTopicConfig.SCHEMA).set(CreatableTopicConfig.NAME, name)
                .set(CreatableTopicConfig.VALUE, value));
        return topic.set(CreatableTopic.CONFIGS, configs);
    }

    @SafeVarargs
    private static Struct assigned(String name, List<Integer>... replicasByPartition) {
        List<Struct> assignments = new ArrayList<>();
        for (int p = 0; p < replicasByPartition.length; p++) {
            assignments.add(new Struct(CreatableReplicaAssignment.SCHEMA)
                    .set(CreatableReplicaAssignment.PARTITION_INDEX, p)
                    .set(CreatableReplicaAssignment.BROKER_IDS, replicasByPartition[p]));
        }
        return topic(name, -1, -1).set(CreatableTopic.ASSIGNMENTS, assignments);
    }

    private List<Struct> create(int version, boolean validateOnly, int timeoutMs, Struct... topics) {
        Struct body = new Struct(CreateTopicsRequest.SCHEMA).set(CreateTopicsRequest.TOPICS, List.of(topics))
                .set(CreateTopicsRequest.TIMEOUT_MS, timeoutMs)
                .set(CreateTopicsRequest.VALIDATE_ONLY, validateOnly);
        return call(handler, request(ApiKey.CREATE_TOPICS, version, body)).get(CreateTopicsResponse.TOPICS);
    }

    private Struct createOne(Struct topic) {
        List<Struct> results = create(4, false, TIMEOUT_MS, topic);
        assertEquals(1, results.size());
        assertEquals(topic.get(CreatableTopic.NAME), results.get(0).get(CreatableTopicResult.NAME));
        return results.get(0);
    }

    private static void assertError(ErrorCode expected, Struct result) {
        assertEquals(expected.code(), result.get(CreatableTopicResult.ERROR_CODE),
                () -> "got " + result.get(CreatableTopicResult.ERROR_MESSAGE));
        if (expected == ErrorCode.NONE) {
            assertNull(result.get(CreatableTopicResult.ERROR_MESSAGE));
        } else {
            assertNotNull(result.get(CreatableTopicResult.ERROR_MESSAGE));
        }
    }

    private TopicInfo created(String name) {
        return metadata.image().topics().get(name);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void minusOneAsksForTheBrokerDefaultsAndTheAnswerWaitsForLeaders(int version) {
        Struct result = create(version, false, TIMEOUT_MS, topic("orders", -1, -1)).get(0);
        assertError(ErrorCode.NONE, result);
        TopicInfo orders = created("orders");
        assertEquals(DEFAULT_PARTITIONS, orders.partitionCount());
        assertEquals(DEFAULT_REPLICATION_FACTOR, orders.replicationFactor());
        for (int p = 0; p < orders.partitionCount(); p++) {
            if (orders.replicas().get(p).contains(1)) {
                assertTrue(partitions.leadership(new TopicPartition("orders", p)).local());
            }
        }
    }

    @Test
    void explicitCountsAndConfigsAreStored() {
        assertError(ErrorCode.NONE, createOne(withConfig(withConfig(topic("orders", 5, 3), "retention.ms", "60000"),
                "cleanup.policy", "delete")));
        TopicInfo orders = created("orders");
        assertEquals(5, orders.partitionCount());
        assertEquals(3, orders.replicationFactor());
        assertEquals(Map.of("retention.ms", "60000", "cleanup.policy", "delete"), orders.configs());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void validateOnlyChecksEverythingAndCreatesNothing(int version) {
        List<Struct> results = create(version, true, TIMEOUT_MS, topic("orders", 2, 1), topic("existing_topic", 1, 1),
                topic("too_many", 1, 4));
        assertError(ErrorCode.NONE, results.get(0));
        assertError(ErrorCode.TOPIC_ALREADY_EXISTS, results.get(1));
        assertError(ErrorCode.INVALID_REPLICATION_FACTOR, results.get(2));
        assertNull(created("orders"));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void anExistingTopicAlreadyExists() {
        assertError(ErrorCode.TOPIC_ALREADY_EXISTS, createOne(topic("existing_topic", 1, 1)));
    }

    @Test
    void topicNamesFollowKafkasRules() {
        for (String name : new String[] {"", ".", "..", "has space", "semi;colon", "é", "x".repeat(250)}) {
            assertError(ErrorCode.INVALID_TOPIC_EXCEPTION, createOne(topic(name, 1, 1)));
        }
        // '.' and '_' collide in metric names.
        assertError(ErrorCode.INVALID_TOPIC_EXCEPTION, createOne(topic("existing.topic", 1, 1)));
        assertError(ErrorCode.NONE, createOne(topic("x".repeat(249), 1, 1)));
        assertError(ErrorCode.NONE, createOne(topic("a-Z_0.9", 1, 1)));
    }

    @Test
    void partitionCountsAndReplicationFactorsOutsideTheirRangesAreRefused() {
        assertError(ErrorCode.INVALID_PARTITIONS, createOne(topic("p0", 0, 1)));
        assertError(ErrorCode.INVALID_PARTITIONS, createOne(topic("p_minus_2", -2, 1)));
        assertError(ErrorCode.INVALID_PARTITIONS, createOne(topic("p_many", 1001, 1)));
        assertError(ErrorCode.INVALID_REPLICATION_FACTOR, createOne(topic("rf0", 1, 0)));
        assertError(ErrorCode.INVALID_REPLICATION_FACTOR, createOne(topic("rf_minus_2", 1, -2)));
        assertError(ErrorCode.INVALID_REPLICATION_FACTOR, createOne(topic("rf4", 1, 4)));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void anExplicitAssignmentIsUsedAsGiven() {
        assertError(ErrorCode.NONE, createOne(assigned("placed", List.of(2, 1), List.of(3, 2))));
        assertEquals(List.of(List.of(2, 1), List.of(3, 2)), created("placed").replicas());
    }

    @Test
    void invalidAssignmentsAreRefused() {
        Struct withCounts = assigned("counts", List.of(1)).set(CreatableTopic.NUM_PARTITIONS, 1);
        assertError(ErrorCode.INVALID_REQUEST, createOne(withCounts));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, createOne(assigned("unregistered", List.of(1, 9))));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, createOne(assigned("repeated", List.of(1, 1))));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, createOne(assigned("empty", List.of())));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, createOne(assigned("uneven", List.of(1), List.of(1, 2))));
        Struct gap = assigned("gap", List.of(1), List.of(2));
        gap.get(CreatableTopic.ASSIGNMENTS).get(1).set(CreatableReplicaAssignment.PARTITION_INDEX, 2);
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, createOne(gap));
        assertTrue(metadata.submitted().isEmpty());
    }

    /**
     * PARTITIONS_PER_BROKER_MAX was declared and never checked: a topic that would put a broker over it is refused
     * with POLICY_VIOLATION naming the broker, validate-only included, and nothing is proposed.
     */
    @Test
    void aTopicThatWouldPutABrokerOverThePartitionLimitIsAPolicyViolation() {
        int hosted = dev.cairn.broker.config.Limits.PARTITIONS_PER_BROKER_MAX - 10;
        metadata.withTopic("big", hosted, 2);   // broker 2 now hosts 'hosted' replicas
        int submittedBefore = metadata.submitted().size();
        Struct over = createOne(topic("over", 12, 3));   // RF 3 on 3 brokers: 12 more replicas on each
        assertError(ErrorCode.POLICY_VIOLATION, over);
        assertTrue(over.get(CreatableTopicResult.ERROR_MESSAGE).contains("broker 2"),
                over.get(CreatableTopicResult.ERROR_MESSAGE));
        assertError(ErrorCode.POLICY_VIOLATION, create(4, true, TIMEOUT_MS, topic("over", 12, 3)).get(0));
        assertEquals(submittedBefore, metadata.submitted().size(), "nothing proposed");
        assertError(ErrorCode.NONE, createOne(topic("fits", 10, 3)));   // 10 more on each: exactly the limit
    }

    @Test
    void unsupportedOrMalformedConfigsAreInvalid() {
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c1", 1, 1), "no.such.config", "1")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2", 1, 1), "cleanup.policy", "erase")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2b", 1, 1), "cleanup.policy",
                "compact,compact")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2c", 1, 1), "cleanup.policy", "")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2d", 1, 1), "min.cleanable.dirty.ratio",
                "1.5")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2f", 1, 1), "delete.retention.ms",
                "-1")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c2g", 1, 1), "max.compaction.lag.ms",
                "0")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c3", 1, 1), "message.timestamp.type",
                "WallClock")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c3b", 1, 1), "compression.type", "brotli")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c4", 1, 1), "retention.ms", "soon")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c5", 1, 1), "retention.ms", "-2")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c6", 1, 1), "segment.bytes", "10")));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(topic("c7", 1, 1), "retention.bytes", null)));
        assertError(ErrorCode.INVALID_CONFIG, createOne(withConfig(withConfig(topic("c8", 1, 1), "segment.ms", "1"),
                "segment.ms", "2")));
        assertTrue(metadata.submitted().isEmpty());
        assertError(ErrorCode.NONE, createOne(withConfig(withConfig(topic("c2e", 1, 1), "min.cleanable.dirty.ratio",
                "0.1"), "delete.retention.ms", "0")));
        assertError(ErrorCode.NONE, createOne(withConfig(withConfig(withConfig(withConfig(topic("c9", 1, 1),
                "retention.bytes", "-1"), "segment.bytes", "1048576"), "max.message.bytes", "2000000"),
                "message.timestamp.type", "CreateTime")));
        for (String policy : List.of("compact", "compact,delete", "delete, compact")) {
            assertError(ErrorCode.NONE, createOne(withConfig(topic("compacted-" + policy.length(), 1, 1),
                    "cleanup.policy", policy)));
        }
    }

    @Test
    void aTopicNamedTwiceIsAnsweredOnceAsAnInvalidRequestAndTheOthersAreCreated() {
        List<Struct> results = create(4, false, TIMEOUT_MS, topic("twice", 1, 1), topic("once", 1, 1),
                topic("twice", 2, 1));
        assertEquals(2, results.size());
        assertEquals("twice", results.get(0).get(CreatableTopicResult.NAME));
        assertError(ErrorCode.INVALID_REQUEST, results.get(0));
        assertError(ErrorCode.NONE, results.get(1));
        assertNull(created("twice"));
        assertNotNull(created("once"));
    }

    @Test
    void aBrokerThatIsNotTheControllerAnswersNotController() {
        metadata.setControllerId(2);
        assertError(ErrorCode.NOT_CONTROLLER, createOne(topic("orders", 1, 1)));
        metadata.setControllerId(-1);
        assertError(ErrorCode.NOT_CONTROLLER, createOne(topic("orders", 1, 1)));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void withoutLeadersInTimeTheCreatedTopicIsAnsweredRequestTimedOut() {
        electLeaders.set(false);
        long startNs = System.nanoTime();
        // Placed here explicitly: only partitions with a replica on this broker are waited for.
        Struct result = create(4, false, 200, assigned("slow", List.of(1))).get(0);
        assertError(ErrorCode.REQUEST_TIMED_OUT, result);
        assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(200));
        assertNotNull(created("slow"), "the topic exists although its leader is late");
    }

    @Test
    void aZeroTimeoutAnswersOnceTheTopicIsCommitted() {
        electLeaders.set(false);
        assertError(ErrorCode.NONE, create(4, false, 0, assigned("fast", List.of(1))).get(0));
        assertNotNull(created("fast"));
    }

    @Test
    void leadersElectedAfterTheCommitAreWaitedFor() {
        electLeaders.set(false);
        timer.schedule(() -> partitions.leadLocally(new TopicPartition("later", 0)), 100, TimeUnit.MILLISECONDS);
        assertError(ErrorCode.NONE, create(4, false, TIMEOUT_MS, assigned("later", List.of(1))).get(0));
        // Answered only once the leader was elected: an answer before the wait ended would find no leader yet.
        assertTrue(partitions.leadership(new TopicPartition("later", 0)).local());
    }

    @Test
    void partitionsWithoutAReplicaHereAreNotWaitedFor() {
        electLeaders.set(false);
        assertError(ErrorCode.NONE, create(4, false, TIMEOUT_MS, assigned("remote", List.of(2), List.of(3))).get(0));
        assertFalse(partitions.leadership(new TopicPartition("remote", 0)).local());
    }
}
