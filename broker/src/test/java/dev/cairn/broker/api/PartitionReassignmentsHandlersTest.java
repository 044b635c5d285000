package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest.ReassignablePartition;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest.ReassignableTopic;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse.ReassignablePartitionResponse;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse.ReassignableTopicResponse;
import dev.cairn.protocol.message.ListPartitionReassignmentsRequest;
import dev.cairn.protocol.message.ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse.OngoingPartitionReassignment;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse.OngoingTopicReassignment;
import dev.cairn.protocol.schema.Struct;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * AlterPartitionReassignments v0-1 and ListPartitionReassignments v0: Kafka's error per partition, the replication
 * factor guard of v1, and the listing of replicas, adding and removing while a move is in progress.
 */
class PartitionReassignmentsHandlersTest {
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1, 2, 3, 4)
            .withTopic("orders", 2, 1);
    private final AlterPartitionReassignmentsHandler alter = new AlterPartitionReassignmentsHandler(metadata);
    private final ListPartitionReassignmentsHandler list = new ListPartitionReassignmentsHandler(metadata);

    private List<Struct> alter(int version, boolean allowRfChange, String topic, int partition, Integer... replicas) {
        Struct body = new Struct(AlterPartitionReassignmentsRequest.SCHEMA)
                .set(AlterPartitionReassignmentsRequest.TIMEOUT_MS, 1000)
                .set(AlterPartitionReassignmentsRequest.TOPICS, List.of(new Struct(ReassignableTopic.SCHEMA)
                        .set(ReassignableTopic.NAME, topic)
                        .set(ReassignableTopic.PARTITIONS, List.of(new Struct(ReassignablePartition.SCHEMA)
                                .set(ReassignablePartition.PARTITION_INDEX, partition)
                                .set(ReassignablePartition.REPLICAS, replicas == null ? null
                                        : Arrays.asList(replicas))))));
        if (version >= 1) {
            body.set(AlterPartitionReassignmentsRequest.ALLOW_REPLICATION_FACTOR_CHANGE, allowRfChange);
        }
        Struct response = call(alter, request(ApiKey.ALTER_PARTITION_REASSIGNMENTS, version, body));
        assertEquals(ErrorCode.NONE.code(), response.get(AlterPartitionReassignmentsResponse.ERROR_CODE));
        return response.get(AlterPartitionReassignmentsResponse.RESPONSES).get(0)
                .get(ReassignableTopicResponse.PARTITIONS);
    }

    private static short error(List<Struct> partitions) {
        return partitions.get(0).get(ReassignablePartitionResponse.ERROR_CODE);
    }

    private List<Struct> listAll() {
        Struct body = new Struct(ListPartitionReassignmentsRequest.SCHEMA)
                .set(ListPartitionReassignmentsRequest.TIMEOUT_MS, 1000)
                .set(ListPartitionReassignmentsRequest.TOPICS, null);
        Struct response = call(list, request(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, body));
        assertEquals(ErrorCode.NONE.code(), response.get(ListPartitionReassignmentsResponse.ERROR_CODE));
        return response.get(ListPartitionReassignmentsResponse.TOPICS);
    }

    @Test
    void aMoveIsListedWithItsAddingAndRemovingReplicas() {
        assertEquals(ErrorCode.NONE.code(), error(alter(1, true, "orders", 1, 2, 3)));
        List<Struct> topics = listAll();
        assertEquals(1, topics.size());
        assertEquals("orders", topics.get(0).get(OngoingTopicReassignment.NAME));
        Struct moving = topics.get(0).get(OngoingTopicReassignment.PARTITIONS).get(0);
        assertEquals(1, moving.get(OngoingPartitionReassignment.PARTITION_INDEX));
        assertEquals(List.of(2, 3, 1), moving.get(OngoingPartitionReassignment.REPLICAS));
        assertEquals(List.of(2, 3), moving.get(OngoingPartitionReassignment.ADDING_REPLICAS));
        assertEquals(List.of(1), moving.get(OngoingPartitionReassignment.REMOVING_REPLICAS));

        Struct asked = new Struct(ListPartitionReassignmentsRequest.SCHEMA)
                .set(ListPartitionReassignmentsRequest.TIMEOUT_MS, 1000)
                .set(ListPartitionReassignmentsRequest.TOPICS, List.of(new Struct(
                        ListPartitionReassignmentsTopics.SCHEMA)
                        .set(ListPartitionReassignmentsTopics.NAME, "orders")
                        .set(ListPartitionReassignmentsTopics.PARTITION_INDEXES, List.of(0))));
        Struct notMoving = call(list, request(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, asked));
        assertEquals(List.of(), notMoving.get(ListPartitionReassignmentsResponse.TOPICS));

        assertEquals(ErrorCode.NONE.code(), error(alter(0, true, "orders", 1, (Integer[]) null)));
        Struct cancelled = listAll().get(0).get(OngoingTopicReassignment.PARTITIONS).get(0);
        assertEquals(List.of(1), cancelled.get(OngoingPartitionReassignment.REPLICAS).subList(0, 1));
        assertEquals(List.of(2, 3), cancelled.get(OngoingPartitionReassignment.REMOVING_REPLICAS));
    }

    @Test
    void badRequestsGetKafkasErrors() {
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code(), error(alter(1, true, "nope", 0, 1)));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code(), error(alter(1, true, "orders", 5, 1)));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT.code(), error(alter(1, true, "orders", 0)));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT.code(), error(alter(1, true, "orders", 0, 2, 2)));
        assertEquals(ErrorCode.INVALID_REPLICA_ASSIGNMENT.code(), error(alter(1, true, "orders", 0, 2, 9)));
        assertEquals(ErrorCode.INVALID_REPLICATION_FACTOR.code(), error(alter(1, false, "orders", 0, 2, 3)));
        assertEquals(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS.code(), error(alter(1, true, "orders", 0,
                (Integer[]) null)));
        FakeMetadataService full = new FakeMetadataService().withBrokers(1, 2)
                .withTopic("orders", 1, 1).withTopic("wide", Limits.PARTITIONS_PER_BROKER_MAX, 2);
        Struct overLimit = call(new AlterPartitionReassignmentsHandler(full), request(
                ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, new Struct(AlterPartitionReassignmentsRequest.SCHEMA)
                        .set(AlterPartitionReassignmentsRequest.TIMEOUT_MS, 1000)
                        .set(AlterPartitionReassignmentsRequest.TOPICS, List.of(new Struct(ReassignableTopic.SCHEMA)
                                .set(ReassignableTopic.NAME, "orders")
                                .set(ReassignableTopic.PARTITIONS, List.of(new Struct(ReassignablePartition.SCHEMA)
                                        .set(ReassignablePartition.PARTITION_INDEX, 0)
                                        .set(ReassignablePartition.REPLICAS, List.of(2))))))));
        assertEquals(ErrorCode.POLICY_VIOLATION.code(), error(overLimit.get(AlterPartitionReassignmentsResponse
                .RESPONSES).get(0).get(ReassignableTopicResponse.PARTITIONS)));
        assertEquals(ErrorCode.NONE.code(), error(alter(1, false, "orders", 0, 2)));
        Struct started = listAll().get(0).get(OngoingTopicReassignment.PARTITIONS).get(0);
        assertEquals(List.of(2, 1), started.get(OngoingPartitionReassignment.REPLICAS));
    }
}
