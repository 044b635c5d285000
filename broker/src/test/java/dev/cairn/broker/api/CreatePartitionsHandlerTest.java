package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.CreatePartitionsRequest.CreatePartitionsAssignment;
import dev.cairn.protocol.message.CreatePartitionsRequest.CreatePartitionsTopic;
import dev.cairn.protocol.message.CreatePartitionsResponse;
import dev.cairn.protocol.message.CreatePartitionsResponse.CreatePartitionsTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CreatePartitions v0-3 (KIP-195, Admin.createPartitions): Kafka's checks with its error codes and messages
 * (Kafka 4.x ReplicationControlManager), validate-only, explicit assignments, the controller rule, duplicates, the
 * limit, and the answer waiting for the new partitions' leaders within the request's timeout.
 */
class CreatePartitionsHandlerTest {
    private static final int TIMEOUT_MS = 5_000;

    private final AtomicBoolean electLeaders = new AtomicBoolean(true);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final FakeMetadataService metadata = new FakeMetadataService(this::onMetadataChange).withBrokers(1, 2, 3)
            .withTopic("orders", 2, 1);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final CreatePartitionsHandler handler = new CreatePartitionsHandler(metadata, partitions,
            new TopicCreator(metadata, () -> new UUID(7, 7)), timer, System::currentTimeMillis);

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

    private static Struct grow(String name, int count) {
        return new Struct(CreatePartitionsTopic.SCHEMA).set(CreatePartitionsTopic.NAME, name)
                .set(CreatePartitionsTopic.COUNT, count).set(CreatePartitionsTopic.ASSIGNMENTS, null);
    }

    @SafeVarargs
    private static Struct assigned(String name, int count, List<Integer>... replicas) {
        List<Struct> assignments = new ArrayList<>();
        for (List<Integer> brokers : replicas) {
            assignments.add(new Struct(CreatePartitionsAssignment.SCHEMA)
                    .set(CreatePartitionsAssignment.BROKER_IDS, brokers));
        }
        return grow(name, count).set(CreatePartitionsTopic.ASSIGNMENTS, assignments);
    }

    private List<Struct> send(int version, boolean validateOnly, int timeoutMs, Struct... topics) {
        Struct body = new Struct(CreatePartitionsRequest.SCHEMA)
                .set(CreatePartitionsRequest.TOPICS, List.of(topics))
                .set(CreatePartitionsRequest.TIMEOUT_MS, timeoutMs)
                .set(CreatePartitionsRequest.VALIDATE_ONLY, validateOnly);
        Struct response = call(handler, request(ApiKey.CREATE_PARTITIONS, version, body));
        assertEquals(0, response.get(CreatePartitionsResponse.THROTTLE_TIME_MS));
        return response.get(CreatePartitionsResponse.RESULTS);
    }

    private Struct sendOne(Struct topic) {
        return send(3, false, TIMEOUT_MS, topic).get(0);
    }

    private static void assertError(ErrorCode expected, Struct result) {
        assertEquals(expected, ErrorCode.forCode(result.get(CreatePartitionsTopicResult.ERROR_CODE)),
                () -> result.get(CreatePartitionsTopicResult.NAME) + ": "
                        + result.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        if (expected == ErrorCode.NONE) {
            assertNull(result.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        }
    }

    private TopicInfo topic(String name) {
        return metadata.image().topic(name).orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void theTopicGrowsWithItsReplicationFactorAndTheAnswerWaitsForLeaders(int version) {
        assertError(ErrorCode.NONE, send(version, false, TIMEOUT_MS, grow("orders", 5)).get(0));

        TopicInfo orders = topic("orders");
        assertEquals(5, orders.partitionCount());
        assertEquals(1, orders.replicationFactor());
        for (int p = 2; p < 5; p++) {
            if (orders.replicas().get(p).contains(FakeReplicatedPartitions.LOCAL_NODE_ID)) {
                assertTrue(partitions.leadership(new TopicPartition("orders", p)).local(), "partition " + p);
            }
        }
        MetadataCommand.AddPartitions add = assertInstanceOf(MetadataCommand.AddPartitions.class,
                metadata.submitted().get(0));
        assertEquals(2, add.firstPartition());
    }

    @Test
    void decreasesTheSameCountAndUnknownTopicsAreRefusedWithKafkasMessages() {
        Struct decrease = sendOne(grow("orders", 1));
        assertError(ErrorCode.INVALID_PARTITIONS, decrease);
        assertEquals("The topic orders currently has 2 partition(s); 1 would not be an increase.",
                decrease.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        Struct same = sendOne(grow("orders", 2));
        assertError(ErrorCode.INVALID_PARTITIONS, same);
        assertEquals("Topic already has 2 partition(s).", same.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        assertError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, sendOne(grow("missing", 3)));
        assertError(ErrorCode.INVALID_PARTITIONS, sendOne(grow("orders", 1001)));
        assertTrue(metadata.submitted().isEmpty());
        assertEquals(2, topic("orders").partitionCount());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3})
    void validateOnlyChecksEverythingAndChangesNothing(int version) {
        List<Struct> results = send(version, true, TIMEOUT_MS, grow("orders", 4), grow("missing", 2));
        assertError(ErrorCode.NONE, results.get(0));
        assertError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, results.get(1));
        assertEquals(2, topic("orders").partitionCount());
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void explicitAssignmentsAreUsedAsGiven() {
        assertError(ErrorCode.NONE, sendOne(assigned("orders", 4, List.of(2), List.of(3))));
        assertEquals(List.of(List.of(1), List.of(1), List.of(2), List.of(3)), topic("orders").replicas());
    }

    @Test
    void invalidAssignmentsAreRefusedWithKafkasMessages() {
        Struct tooFew = sendOne(assigned("orders", 4, List.of(2)));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, tooFew);
        assertEquals("Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.",
                tooFew.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, sendOne(assigned("orders", 3, List.of())));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, sendOne(assigned("orders", 3, List.of(9))));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, sendOne(assigned("orders", 3, List.of(2, 2))));
        Struct uneven = sendOne(assigned("orders", 3, List.of(2, 3)));
        assertError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, uneven);
        assertEquals("The manual partition assignment includes a partition with 2 replica(s), but this is not "
                + "consistent with previous partitions, which have 1 replica(s).",
                uneven.get(CreatePartitionsTopicResult.ERROR_MESSAGE));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void aTopicNamedTwiceIsAnsweredOnceAsAnInvalidRequestAndTheOthersGrow() {
        metadata.withTopic("other", 1, 1);
        List<Struct> results = send(3, false, TIMEOUT_MS, grow("orders", 3), grow("other", 2), grow("orders", 4));
        assertEquals(2, results.size());
        assertEquals("orders", results.get(0).get(CreatePartitionsTopicResult.NAME));
        assertError(ErrorCode.INVALID_REQUEST, results.get(0));
        assertError(ErrorCode.NONE, results.get(1));
        assertEquals(2, topic("orders").partitionCount());
        assertEquals(2, topic("other").partitionCount());
    }

    @Test
    void aBrokerThatIsNotTheControllerAnswersNotController() {
        metadata.setControllerId(2);
        assertError(ErrorCode.NOT_CONTROLLER, sendOne(grow("orders", 3)));
        metadata.setControllerId(-1);
        assertError(ErrorCode.NOT_CONTROLLER, sendOne(grow("orders", 3)));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void withoutLeadersInTimeTheAddedPartitionsAreAnsweredRequestTimedOut() {
        electLeaders.set(false);
        long startNs = System.nanoTime();
        Struct result = send(3, false, 200, assigned("orders", 3, List.of(1))).get(0);
        assertError(ErrorCode.REQUEST_TIMED_OUT, result);
        assertTrue(System.nanoTime() - startNs >= TimeUnit.MILLISECONDS.toNanos(200));
        assertEquals(3, topic("orders").partitionCount(), "the partition exists although its leader is late");
    }

    @Test
    void aZeroTimeoutAnswersOnceTheChangeIsCommitted() {
        electLeaders.set(false);
        assertError(ErrorCode.NONE, send(3, false, 0, assigned("orders", 3, List.of(1))).get(0));
        assertEquals(3, topic("orders").partitionCount());
    }

    @Test
    void onlyTheAddedPartitionsAreWaitedFor() {
        electLeaders.set(false);
        timer.schedule(() -> partitions.leadLocally(new TopicPartition("orders", 2)), 100, TimeUnit.MILLISECONDS);
        // Partitions 0 and 1 never get a leader here; only the added partition 2 is waited for.
        assertError(ErrorCode.NONE, send(3, false, TIMEOUT_MS, assigned("orders", 3, List.of(1))).get(0));
        assertTrue(partitions.leadership(new TopicPartition("orders", 2)).local());
    }
}
