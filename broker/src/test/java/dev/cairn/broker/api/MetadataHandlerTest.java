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

/** Metadata's topic auto-creation, around the start-up window before this broker has registered. */
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
}
