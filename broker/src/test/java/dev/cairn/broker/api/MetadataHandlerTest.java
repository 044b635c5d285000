package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.MetadataRequest.MetadataRequestTopic;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.message.MetadataResponse.MetadataResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Metadata: topic auto-creation around the start-up window before this broker has registered; from v7 leader
 * epochs, v8 authorized operations, v10 topic ids in answers and v12 topics asked for by id.
 */
class MetadataHandlerTest {
    private final FakeMetadataService metadata = new FakeMetadataService();
    private final MetadataHandler handler = new MetadataHandler(metadata, new FakeReplicatedPartitions(),
            new TopicCreator(metadata, UUID::randomUUID), "cluster", true, 3, 1);

    private short topicError(String topic) {
        Struct body = new Struct(MetadataRequest.SCHEMA)
                .set(MetadataRequest.TOPICS, List.of(new Struct(MetadataRequestTopic.SCHEMA)
                        .set(MetadataRequestTopic.NAME, topic)))
                .set(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION, true);
        Struct response = call(handler, request(ApiKey.METADATA, 4, body));
        return response.get(MetadataResponse.TOPICS).get(0).get(MetadataResponseTopic.ERROR_CODE);
    }

    /**
     * Before this broker registers, a produce that auto-creates a topic got INVALID_REPLICATION_FACTOR, which
     * librdkafka treats as final; now a retriable LEADER_NOT_AVAILABLE, and nothing is created yet.
     */
    @Test
    void beforeThisBrokerRegistersAutoCreationAnswersARetriableError() {
        assertEquals(ErrorCode.LEADER_NOT_AVAILABLE.code(), topicError("early"));
        assertTrue(ErrorCode.LEADER_NOT_AVAILABLE.retriable());
        assertTrue(metadata.submitted().isEmpty(), "nothing proposed: " + metadata.submitted());
        metadata.withBrokers(1);
        assertEquals(ErrorCode.LEADER_NOT_AVAILABLE.code(), topicError("early"));
        assertTrue(metadata.submitted().stream().anyMatch(c -> c instanceof MetadataCommand.CreateTopic),
                "created once registered: " + metadata.submitted());
        assertTrue(metadata.image().topic("early").isPresent());
    }

    @Test
    void aReplicationFactorAboveTheRegisteredBrokersIsStillRefusedOnceRegistered() {
        FakeMetadataService two = new FakeMetadataService().withBrokers(1);
        MetadataHandler rf3 = new MetadataHandler(two, new FakeReplicatedPartitions(),
                new TopicCreator(two, UUID::randomUUID), "cluster", true, 3, 3);
        Struct body = new Struct(MetadataRequest.SCHEMA)
                .set(MetadataRequest.TOPICS, List.of(new Struct(MetadataRequestTopic.SCHEMA)
                        .set(MetadataRequestTopic.NAME, "t")))
                .set(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION, true);
        Struct response = call(rf3, request(ApiKey.METADATA, 4, body));
        assertEquals(ErrorCode.INVALID_REPLICATION_FACTOR.code(),
                (short) response.get(MetadataResponse.TOPICS).get(0).get(MetadataResponseTopic.ERROR_CODE));
    }

    private static Struct byName(String name) {
        return new Struct(MetadataRequestTopic.SCHEMA).set(MetadataRequestTopic.NAME, name);
    }

    private static Struct byId(UUID topicId) {
        return new Struct(MetadataRequestTopic.SCHEMA).set(MetadataRequestTopic.NAME, null)
                .set(MetadataRequestTopic.TOPIC_ID, topicId);
    }

    private Struct metadata(int version, List<Struct> topics, boolean includeOperations) {
        return metadata(version, topics, includeOperations, java.util.Set.of());
    }

    private Struct metadata(int version, List<Struct> topics, boolean includeOperations,
            java.util.Set<Integer> deadBrokers) {
        FakeMetadataService cluster = new FakeMetadataService().withBrokers(1, 2).withTopic("orders", 2, 1);
        cluster.submit(new MetadataCommand.UpdateDeadBrokers(deadBrokers));
        FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
        partitions.leadLocally(new dev.cairn.broker.cluster.TopicPartition("orders", 0));
        MetadataHandler withTopic = new MetadataHandler(cluster, partitions,
                new TopicCreator(cluster, UUID::randomUUID), "cluster", false, 3, 1);
        Struct body = new Struct(MetadataRequest.SCHEMA).set(MetadataRequest.TOPICS, topics)
                .set(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION, true)
                .set(MetadataRequest.INCLUDE_CLUSTER_AUTHORIZED_OPERATIONS, includeOperations)
                .set(MetadataRequest.INCLUDE_TOPIC_AUTHORIZED_OPERATIONS, includeOperations);
        return call(withTopic, request(ApiKey.METADATA, version, body));
    }

    /** A topic's id is answered from v10 and found by id from v12; an unknown id is UNKNOWN_TOPIC_ID. */
    @Test
    void topicsAreAnsweredWithTheirIdsAndFoundByThem() {
        UUID orders = UUID.nameUUIDFromBytes("orders".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        UUID unknown = new UUID(7, 7);

        Struct response = metadata(12, List.of(byId(orders), byId(unknown), byName("missing")), false);

        List<Struct> topics = response.get(MetadataResponse.TOPICS);
        assertEquals(3, topics.size());
        assertEquals(ErrorCode.NONE.code(), topics.get(0).get(MetadataResponseTopic.ERROR_CODE));
        assertEquals("orders", topics.get(0).get(MetadataResponseTopic.NAME));
        assertEquals(orders, topics.get(0).get(MetadataResponseTopic.TOPIC_ID));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code(), topics.get(1).get(MetadataResponseTopic.ERROR_CODE));
        assertEquals(MetadataHandler.NO_TOPIC_ID, topics.get(1).get(MetadataResponseTopic.TOPIC_ID));
        assertEquals(ErrorCode.UNKNOWN_TOPIC_ID.code(), topics.get(2).get(MetadataResponseTopic.ERROR_CODE));
        assertEquals(null, topics.get(2).get(MetadataResponseTopic.NAME));
        assertEquals(unknown, topics.get(2).get(MetadataResponseTopic.TOPIC_ID));
        assertEquals(ErrorCode.NONE.code(), response.get(MetadataResponse.ERROR_CODE));
    }

    /** Kafka refuses topic ids in requests below v12 (a v10-11 answer cannot name a topic null). */
    @Test
    void topicIdsInRequestsBelowVersion12AreInvalid() {
        Struct response = metadata(11, List.of(byId(new UUID(1, 1))), false);
        Struct topic = response.get(MetadataResponse.TOPICS).get(0);
        assertEquals(ErrorCode.INVALID_REQUEST.code(), topic.get(MetadataResponseTopic.ERROR_CODE));
        assertEquals("", topic.get(MetadataResponseTopic.NAME));
    }

    /** The leader's Raft term is the leader epoch; replicas on brokers that are not live are offline. */
    @Test
    void partitionsCarryLeaderEpochsAndOfflineReplicas() {
        Struct response = metadata(13, List.of(byName("orders")), false);
        List<Struct> partitions = response.get(MetadataResponse.TOPICS).get(0).get(MetadataResponseTopic.PARTITIONS);
        Struct led = partitions.get(0);
        assertEquals(1, led.get(MetadataResponse.MetadataResponsePartition.LEADER_ID));
        assertEquals(3, led.get(MetadataResponse.MetadataResponsePartition.LEADER_EPOCH));
        assertEquals(List.of(), led.get(MetadataResponse.MetadataResponsePartition.OFFLINE_REPLICAS));
        Struct leaderless = partitions.get(1);
        assertEquals(-1, leaderless.get(MetadataResponse.MetadataResponsePartition.LEADER_ID));
        assertEquals(-1, leaderless.get(MetadataResponse.MetadataResponsePartition.LEADER_EPOCH));
    }

    /** A replica on a broker the metadata leader no longer hears from is listed offline. */
    @Test
    void replicasOnDeadBrokersAreOffline() {
        Struct response = metadata(13, List.of(byName("orders")), false, java.util.Set.of(1));
        for (Struct partition : response.get(MetadataResponse.TOPICS).get(0).get(MetadataResponseTopic.PARTITIONS)) {
            assertEquals(List.of(1), partition.get(MetadataResponse.MetadataResponsePartition.OFFLINE_REPLICAS));
        }
        assertTrue(response.get(MetadataResponse.BROKERS).stream()
                .noneMatch(b -> b.get(MetadataResponse.MetadataResponseBroker.NODE_ID) == 1), "broker 1 is not listed");
    }

    /** Without an authorizer, Kafka answers every operation when asked and "not provided" otherwise. */
    @Test
    void authorizedOperationsAreAllWhenAskedFor() {
        Struct asked = metadata(10, List.of(byName("orders")), true);
        // READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (codes 3-8, 10, 11).
        assertEquals(0b1101_1111_1000, asked.get(MetadataResponse.TOPICS).get(0)
                .get(MetadataResponseTopic.TOPIC_AUTHORIZED_OPERATIONS));
        assertEquals(0b1_1111_1010_0000, asked.get(MetadataResponse.CLUSTER_AUTHORIZED_OPERATIONS));
        Struct notAsked = metadata(10, List.of(byName("orders")), false);
        assertEquals(Integer.MIN_VALUE, notAsked.get(MetadataResponse.TOPICS).get(0)
                .get(MetadataResponseTopic.TOPIC_AUTHORIZED_OPERATIONS));
        assertEquals(Integer.MIN_VALUE, notAsked.get(MetadataResponse.CLUSTER_AUTHORIZED_OPERATIONS));
    }
}
