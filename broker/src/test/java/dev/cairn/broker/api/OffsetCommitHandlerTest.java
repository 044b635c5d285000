package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.group.GroupConfig;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.group.JoinRequest;
import dev.cairn.broker.group.JoinResult;
import dev.cairn.broker.group.Protocol;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.OffsetCommitRequest;
import dev.cairn.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import dev.cairn.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import dev.cairn.protocol.message.OffsetCommitResponse;
import dev.cairn.protocol.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import dev.cairn.protocol.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OffsetCommit v2-7 for standalone consumers (kafka-protocol.md A.1, "assign + commitSync": generation -1 and an
 * empty member id, accepted while the group is Empty; ClassicGroup.validateOffsetCommit), with the coordinator
 * error mapping consumers retry.
 */
class OffsetCommitHandlerTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final long NOW_MS = 1_700_000_000_000L;

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1).withTopic("orders", 2, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final GroupCoordinator groups = groupCoordinator();
    private final OffsetCommitHandler handler = new OffsetCommitHandler(metadata, partitions, groups, () -> NOW_MS);

    @BeforeEach
    void lead() {
        partitions.leadLocally(ORDERS_0);
        partitions.leadLocally(ORDERS_1);
    }

    /** A coordinator that owns every group; the handler itself checks which broker coordinates a group. */
    static GroupCoordinator groupCoordinator() {
        AtomicInteger ids = new AtomicInteger();
        return new GroupCoordinator(new GroupConfig(6_000, 1_800_000, 0, 1_000),
                () -> Integer.toString(ids.incrementAndGet()), groupId -> true);
    }

    /** Joins one member (JoinGroup v3 semantics, no MEMBER_ID_REQUIRED) to {@code groupId}; returns its result. */
    private JoinResult joinMember(String groupId) {
        return groups.join(new JoinRequest(groupId, "", null, "client", "/127.0.0.1", 10_000, 10_000, "consumer",
                List.of(new Protocol("range", new byte[0])), false), NOW_MS).join();
    }

    static Struct partition(int index, long offset, int leaderEpoch, String committedMetadata) {
        return new Struct(OffsetCommitRequestPartition.SCHEMA)
                .set(OffsetCommitRequestPartition.PARTITION_INDEX, index)
                .set(OffsetCommitRequestPartition.COMMITTED_OFFSET, offset)
                .set(OffsetCommitRequestPartition.COMMITTED_LEADER_EPOCH, leaderEpoch)
                .set(OffsetCommitRequestPartition.COMMITTED_METADATA, committedMetadata);
    }

    static Struct topic(String name, Struct... partitions) {
        return new Struct(OffsetCommitRequestTopic.SCHEMA).set(OffsetCommitRequestTopic.NAME, name)
                .set(OffsetCommitRequestTopic.PARTITIONS, List.of(partitions));
    }

    static Struct commitRequest(String groupId, int generationId, String memberId, Struct... topics) {
        return new Struct(OffsetCommitRequest.SCHEMA)
                .set(OffsetCommitRequest.GROUP_ID, groupId)
                .set(OffsetCommitRequest.GENERATION_ID_OR_MEMBER_EPOCH, generationId)
                .set(OffsetCommitRequest.MEMBER_ID, memberId)
                .set(OffsetCommitRequest.TOPICS, List.of(topics));
    }

    private Struct commit(int version, Struct body) {
        return call(handler, request(ApiKey.OFFSET_COMMIT, version, body));
    }

    /** Every partition's error code, topic by topic, in response order. */
    private static List<Short> errors(Struct response) {
        List<Short> errors = new ArrayList<>();
        for (Struct topic : response.get(OffsetCommitResponse.TOPICS)) {
            for (Struct partition : topic.get(OffsetCommitResponseTopic.PARTITIONS)) {
                errors.add(partition.get(OffsetCommitResponsePartition.ERROR_CODE));
            }
        }
        return errors;
    }

    private static List<Short> codes(ErrorCode... errors) {
        List<Short> codes = new ArrayList<>();
        for (ErrorCode error : errors) {
            codes.add(error.code());
        }
        return codes;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5, 6, 7})
    void aStandaloneConsumerCommitIsReplicatedToEachPartition(int version) {
        Struct response = commit(version, commitRequest("app", -1, "",
                topic("orders", partition(0, 42, 5, "checkpoint"), partition(1, 7, 5, null))));
        assertEquals(codes(ErrorCode.NONE, ErrorCode.NONE), errors(response));
        Struct topic = response.get(OffsetCommitResponse.TOPICS).get(0);
        assertEquals("orders", topic.get(OffsetCommitResponseTopic.NAME));
        assertEquals(List.of(0, 1), topic.get(OffsetCommitResponseTopic.PARTITIONS).stream()
                .map(p -> p.get(OffsetCommitResponsePartition.PARTITION_INDEX)).toList());

        var committed = partitions.leaderReplica(ORDERS_0).orElseThrow().committedOffset("app").orElseThrow();
        assertEquals(42, committed.offset());
        assertEquals("checkpoint", committed.metadata());
        assertEquals(NOW_MS, committed.commitTimeMs());
        assertNull(partitions.leaderReplica(ORDERS_1).orElseThrow().committedOffset("app").orElseThrow().metadata());
        // The leader epoch exists from v6; older versions commit "no epoch".
        Command.CommitOffset first = (Command.CommitOffset) partitions.submitted().get(0);
        assertEquals(version >= 6 ? 5 : -1, first.leaderEpoch());
        assertEquals("app", first.groupId());
    }

    @Test
    void generationMinusOneIsAcceptedWhateverTheMemberIdAsForAnEmptyGroup() {
        Struct response = commit(7, commitRequest("app", -1, "consumer-1-abc", topic("orders", partition(0, 1, -1,
                ""))));
        assertEquals(codes(ErrorCode.NONE), errors(response));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 5, 7})
    void aCommitClaimingAGenerationIsAnIllegalGenerationAndNothingIsWritten(int version) {
        Struct response = commit(version, commitRequest("app", 3, "consumer-1-abc",
                topic("orders", partition(0, 1, -1, ""), partition(1, 1, -1, ""))));
        assertEquals(codes(ErrorCode.ILLEGAL_GENERATION, ErrorCode.ILLEGAL_GENERATION), errors(response));
        assertTrue(partitions.submitted().isEmpty());
    }

    @Test
    void unknownTopicsAndPartitionsAreAnsweredFirst() {
        Struct response = commit(7, commitRequest("app", 3, "m",
                topic("payments", partition(0, 1, -1, "")), topic("orders", partition(2, 1, -1, ""),
                        partition(-1, 1, -1, ""), partition(0, 1, -1, ""))));
        assertEquals(codes(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.ILLEGAL_GENERATION), errors(response));
    }

    @Test
    void anEmptyGroupIdIsInvalid() {
        Struct response = commit(7, commitRequest("", -1, "", topic("orders", partition(0, 1, -1, ""))));
        assertEquals(codes(ErrorCode.INVALID_GROUP_ID), errors(response));
        assertTrue(partitions.submitted().isEmpty());
    }

    @Test
    void metadataOverTheLimitIsTooLargeAndOtherPartitionsStillCommit() {
        String limit = "m".repeat(OffsetCommitHandler.OFFSET_METADATA_CHARS_MAX);
        Struct response = commit(7, commitRequest("app", -1, "",
                topic("orders", partition(0, 1, -1, limit + "x"), partition(1, 2, -1, limit))));
        assertEquals(codes(ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.NONE), errors(response));
        assertTrue(partitions.leaderReplica(ORDERS_0).orElseThrow().committedOffset("app").isEmpty());
        assertEquals(limit, partitions.leaderReplica(ORDERS_1).orElseThrow().committedOffset("app").orElseThrow()
                .metadata());
    }

    @Test
    void aCommitToAPartitionLedElsewhereGoesThroughItsLeaderAndAnUnreachableOneIsRetriable() {
        partitions.ledElsewhere(ORDERS_0, 2);
        Struct response = commit(7, commitRequest("app", -1, "", topic("orders", partition(0, 1, -1, ""))));
        assertEquals(codes(ErrorCode.COORDINATOR_NOT_AVAILABLE), errors(response));
        assertEquals(1, partitions.submitted().size(), "the commit was sent towards the partition's leader");
        Struct loading = call(new OffsetCommitHandler(metadata, new FakeReplicatedPartitions(), groups,
                () -> NOW_MS),
                request(ApiKey.OFFSET_COMMIT, 7, commitRequest("app", -1, "", topic("orders",
                        partition(0, 1, -1, "")))));
        assertEquals(codes(ErrorCode.COORDINATOR_NOT_AVAILABLE), errors(loading));
    }

    @Test
    void aGroupCoordinatedByAnotherBrokerIsNotCoordinatedHere() {
        FakeMetadataService three = new FakeMetadataService().withBrokers(1, 2, 3).withTopic("orders", 2, 1);
        String group = "g0";
        for (int i = 0; FindCoordinatorHandler.coordinatorFor(group, three.image().brokers()).nodeId() == 1; i++) {
            group = "g" + i;
        }
        assertNotEquals(1, FindCoordinatorHandler.coordinatorFor(group, three.image().brokers()).nodeId());
        Struct response = call(new OffsetCommitHandler(three, partitions, groups, () -> NOW_MS),
                request(ApiKey.OFFSET_COMMIT, 7, commitRequest(group, -1, "", topic("orders",
                        partition(0, 1, -1, "")))));
        assertEquals(codes(ErrorCode.NOT_COORDINATOR), errors(response));
        assertTrue(partitions.submitted().isEmpty());
    }

    @Test
    void replicationFailuresBecomeTheCoordinatorErrorsConsumersRetry() {
        partitions.answerSubmitsWith(new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, "timed out"));
        Struct body = commitRequest("app", -1, "", topic("orders", partition(0, 1, -1, "")));
        assertEquals(codes(ErrorCode.COORDINATOR_NOT_AVAILABLE), errors(commit(7, body)));
        partitions.answerSubmitsWith(new Result.Rejected(ErrorCode.NOT_LEADER_OR_FOLLOWER, "lost leadership"));
        assertEquals(codes(ErrorCode.NOT_COORDINATOR), errors(commit(7, body)));
        partitions.answerSubmitsWith(new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, "disk"));
        assertEquals(codes(ErrorCode.NOT_COORDINATOR), errors(commit(7, body)));
        partitions.answerSubmitsWith(new Result.Retained(0, 0));
        assertEquals(codes(ErrorCode.UNKNOWN_SERVER_ERROR), errors(commit(7, body)));
        for (ErrorCode retried : new ErrorCode[] {ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR}) {
            assertTrue(retried.retriable());
        }
    }

    @Test
    void aMemberCommitsOnlyInItsCurrentGenerationOnceItHasItsAssignment() {
        JoinResult member = joinMember("app");
        Struct partitionZero = topic("orders", partition(0, 5, -1, ""));
        assertEquals(codes(ErrorCode.REBALANCE_IN_PROGRESS), errors(commit(7, commitRequest("app",
                member.generationId(), member.memberId(), partitionZero))), "joined but not yet synced");
        groups.sync("app", member.generationId(), member.memberId(), null, Map.of(), NOW_MS).join();
        assertEquals(codes(ErrorCode.NONE), errors(commit(7, commitRequest("app", member.generationId(),
                member.memberId(), partitionZero))));
        assertEquals(5, partitions.leaderReplica(ORDERS_0).orElseThrow().committedOffset("app").orElseThrow()
                .offset());
        assertEquals(codes(ErrorCode.ILLEGAL_GENERATION), errors(commit(7, commitRequest("app",
                member.generationId() + 1, member.memberId(), partitionZero))));
        assertEquals(codes(ErrorCode.UNKNOWN_MEMBER_ID), errors(commit(7, commitRequest("app",
                member.generationId(), "stranger", partitionZero))));
    }

    @Test
    void aCommitWithoutGenerationIsRefusedWhileTheGroupHasMembers() {
        JoinResult member = joinMember("app");
        assertEquals(codes(ErrorCode.UNKNOWN_MEMBER_ID), errors(commit(7, commitRequest("app", -1, "",
                topic("orders", partition(0, 5, -1, ""))))));
        groups.leave("app", member.memberId(), NOW_MS);
        assertEquals(codes(ErrorCode.NONE), errors(commit(7, commitRequest("app", -1, "",
                topic("orders", partition(0, 5, -1, ""))))), "the group is Empty again");
    }
}
