package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static dev.cairn.broker.api.OffsetCommitHandlerTest.commitRequest;
import static dev.cairn.broker.api.OffsetCommitHandlerTest.partition;
import static dev.cairn.broker.api.OffsetCommitHandlerTest.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.OffsetCommitResponse;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OffsetFetch v1-7 (kafka-protocol.md A.1: the consumer reads its committed position before fetching): offsets
 * read back from the partitions' leaders, -1 and "" where nothing is committed, all committed partitions for
 * null topics, and group-level coordinator errors (per partition in v1, which has no group error).
 */
class OffsetFetchHandlerTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1)
            .withTopic("orders", 2, 1).withTopic("audit", 1, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final OffsetFetchHandler handler = new OffsetFetchHandler(metadata, partitions);

    @BeforeEach
    void commitSome() {
        partitions.leadLocally(ORDERS_0);
        partitions.leadLocally(ORDERS_1);
        partitions.leadLocally(AUDIT_0);
        OffsetCommitHandler committer = new OffsetCommitHandler(metadata, partitions,
                OffsetCommitHandlerTest.groupCoordinator(), () -> 1_000L);
        Struct committed = call(committer, request(ApiKey.OFFSET_COMMIT, 7, commitRequest("app", -1, "",
                topic("orders", partition(0, 42, 3, "checkpoint")), topic("audit", partition(0, 9, 3, null)))));
        assertEquals(2, committed.get(OffsetCommitResponse.TOPICS).size());
    }

    private Struct fetch(int version, String groupId, List<Struct> topics) {
        return fetch(version, groupId, topics, false);
    }

    private Struct fetch(int version, String groupId, List<Struct> topics, boolean requireStable) {
        Struct body = new Struct(OffsetFetchRequest.SCHEMA).set(OffsetFetchRequest.GROUP_ID, groupId)
                .set(OffsetFetchRequest.TOPICS, topics).set(OffsetFetchRequest.REQUIRE_STABLE, requireStable);
        return call(handler, request(ApiKey.OFFSET_FETCH, version, body));
    }

    private static Struct wanted(String name, Integer... partitions) {
        return new Struct(OffsetFetchRequestTopic.SCHEMA).set(OffsetFetchRequestTopic.NAME, name)
                .set(OffsetFetchRequestTopic.PARTITION_INDEXES, List.of(partitions));
    }

    /** "topic-partition=offset/metadata/error" for every partition, in response order. */
    private static List<String> answers(int version, Struct response) {
        List<String> answers = new ArrayList<>();
        for (Struct topic : response.get(OffsetFetchResponse.TOPICS)) {
            for (Struct p : topic.get(OffsetFetchResponseTopic.PARTITIONS)) {
                answers.add(topic.get(OffsetFetchResponseTopic.NAME) + "-"
                        + p.get(OffsetFetchResponsePartition.PARTITION_INDEX) + "="
                        + p.get(OffsetFetchResponsePartition.COMMITTED_OFFSET) + "/"
                        + p.get(OffsetFetchResponsePartition.METADATA) + "/"
                        + p.get(OffsetFetchResponsePartition.ERROR_CODE));
                // Every commit above was made with leader epoch 3, and it is read back (clients use it to detect log
                // truncation); nothing committed has no epoch.
                // The field exists from v5 on.
                int expectedEpoch = version < 5 || p.get(OffsetFetchResponsePartition.COMMITTED_OFFSET) == -1 ? -1 : 3;
                assertEquals(expectedEpoch, (int) p.get(OffsetFetchResponsePartition.COMMITTED_LEADER_EPOCH));
            }
        }
        return answers;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7})
    void committedOffsetsAndNoOffsetForTheRest(int version) {
        Struct response = fetch(version, "app", List.of(wanted("orders", 0, 1, 2), wanted("audit", 0),
                wanted("payments", 0)));
        assertEquals(List.of("orders-0=42/checkpoint/0", "orders-1=-1//0", "orders-2=-1//0", "audit-0=9//0",
                "payments-0=-1//0"), answers(version, response));
        assertEquals(ErrorCode.NONE.code(), response.get(OffsetFetchResponse.ERROR_CODE));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7})
    void anotherGroupHasNothingCommitted(int version) {
        assertEquals(List.of("orders-0=-1//0"), answers(version, fetch(version, "other", List.of(wanted("orders", 0)))));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 5, 7})
    void nullTopicsMeansEveryPartitionTheGroupCommitted(int version) {
        Struct response = fetch(version, "app", null);
        assertEquals(List.of("audit-0=9//0", "orders-0=42/checkpoint/0"), answers(version, response));
        assertTrue(answers(version, fetch(version, "other", null)).isEmpty());
    }

    /**
     * KIP-447: while a transaction holds an offset of the group for a partition, a consumer that asks for stable
     * offsets (require_stable, v7+) is told UNSTABLE_OFFSET_COMMIT for that partition and retries; one that does not
     * gets the last committed offset, the pending one ignored (Kafka's OffsetMetadataManager.fetchOffsets).
     */
    @Test
    void aPendingTransactionalOffsetIsUnstableOnlyForAStableRead() {
        partitions.submit(ORDERS_0, new Command.TxnCommitOffset(77L, (short) 0, "app", 99, 3, "txn", 2_000L), 1_000)
                .join();
        assertEquals(List.of("orders-0=42/checkpoint/0", "audit-0=9//0"),
                answers(7, fetch(7, "app", List.of(wanted("orders", 0), wanted("audit", 0)), false)));
        assertEquals(List.of("orders-0=42/checkpoint/0"), answers(6, fetch(6, "app", List.of(wanted("orders", 0)))),
                "versions before require_stable read committed offsets");
        assertEquals(List.of("orders-0=-1//" + ErrorCode.UNSTABLE_OFFSET_COMMIT.code(), "audit-0=9//0"),
                answers(7, fetch(7, "app", List.of(wanted("orders", 0), wanted("audit", 0)), true)));
        assertEquals(List.of("audit-0=9//0", "orders-0=-1//" + ErrorCode.UNSTABLE_OFFSET_COMMIT.code()),
                answers(7, fetch(7, "app", null, true)), "every partition of the group, as when named");

        partitions.submit(ORDERS_0, new Command.TxnEndOffsets(77L, (short) 0, true), 1_000).join();
        assertEquals(List.of("orders-0=99/txn/0"), answers(7, fetch(7, "app", List.of(wanted("orders", 0)), true)));
    }

    @Test
    void aPartitionWhoseLeaderCannotBeReachedMakesTheWholeAnswerRetriable() {
        // Offsets of partitions led elsewhere are read through their leader; an unreachable one is a
        // COORDINATOR_LOAD_IN_PROGRESS for the whole group, which consumers retry against this coordinator.
        partitions.ledElsewhere(ORDERS_1, 2);
        Struct response = fetch(7, "app", List.of(wanted("orders", 0, 1)));
        assertEquals(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code(), response.get(OffsetFetchResponse.ERROR_CODE));
        assertTrue(response.get(OffsetFetchResponse.TOPICS).isEmpty());
        Struct all = fetch(7, "app", null);
        assertEquals(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code(), all.get(OffsetFetchResponse.ERROR_CODE));
        assertTrue(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.retriable());
    }

    @Test
    void inVersionOneTheGroupErrorIsInEveryRequestedPartition() {
        partitions.ledElsewhere(ORDERS_1, 2);
        assertEquals(List.of("orders-0=-1//14", "orders-1=-1//14"),
                answers(1, fetch(1, "app", List.of(wanted("orders", 0, 1)))));
    }

    @Test
    void aPartitionWithoutReachableLeaderIsRetriable() {
        Struct response = call(new OffsetFetchHandler(metadata, new FakeReplicatedPartitions()),
                request(ApiKey.OFFSET_FETCH, 7, new Struct(OffsetFetchRequest.SCHEMA)
                        .set(OffsetFetchRequest.GROUP_ID, "app")
                        .set(OffsetFetchRequest.TOPICS, List.of(wanted("orders", 0)))));
        assertEquals(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code(), response.get(OffsetFetchResponse.ERROR_CODE));
    }

    @Test
    void anEmptyGroupIdIsInvalid() {
        assertEquals(ErrorCode.INVALID_GROUP_ID.code(),
                fetch(7, "", List.of(wanted("orders", 0))).get(OffsetFetchResponse.ERROR_CODE));
    }

    @Test
    void aGroupCoordinatedByAnotherBrokerIsNotCoordinatedHere() {
        FakeMetadataService three = new FakeMetadataService().withBrokers(1, 2, 3).withTopic("orders", 2, 1);
        String group = "g0";
        for (int i = 0; FindCoordinatorHandler.coordinatorFor(group, three.image().brokers()).nodeId() == 1; i++) {
            group = "g" + i;
        }
        Struct response = call(new OffsetFetchHandler(three, partitions), request(ApiKey.OFFSET_FETCH, 7,
                new Struct(OffsetFetchRequest.SCHEMA).set(OffsetFetchRequest.GROUP_ID, group)
                        .set(OffsetFetchRequest.TOPICS, List.of(wanted("orders", 0)))));
        assertEquals(ErrorCode.NOT_COORDINATOR.code(), response.get(OffsetFetchResponse.ERROR_CODE));
    }
}
