package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.DeleteTopicsRequest;
import dev.cairn.protocol.message.DeleteTopicsResponse;
import dev.cairn.protocol.message.DeleteTopicsResponse.DeletableTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import org.junit.jupiter.api.Test;

/** DeleteTopics v1 (Admin.deleteTopics, routed to the controller like CreateTopics). */
class DeleteTopicsHandlerTest {
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1)
            .withTopic("orders", 2, 1).withTopic("audit", 1, 1).withTopic(TransactionCoordinator.TOPIC, 3, 1);
    private final DeleteTopicsHandler handler = new DeleteTopicsHandler(metadata);

    private List<String> delete(String... names) {
        Struct body = new Struct(DeleteTopicsRequest.SCHEMA).set(DeleteTopicsRequest.TOPIC_NAMES, List.of(names))
                .set(DeleteTopicsRequest.TIMEOUT_MS, 5_000);
        return call(handler, request(ApiKey.DELETE_TOPICS, 1, body)).get(DeleteTopicsResponse.RESPONSES).stream()
                .map(r -> r.get(DeletableTopicResult.NAME) + "=" + r.get(DeletableTopicResult.ERROR_CODE)).toList();
    }

    @Test
    void deletesExistingTopicsAndReportsUnknownOnes() {
        assertEquals(List.of("orders=0", "payments=" + ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code()),
                delete("orders", "payments"));
        assertFalse(metadata.image().topics().containsKey("orders"));
        assertTrue(metadata.image().topics().containsKey("audit"));
        assertEquals(List.of("orders=" + ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code()), delete("orders"));
    }

    @Test
    void aTopicNamedTwiceIsAnsweredOnceAsAnInvalidRequest() {
        assertEquals(List.of("orders=" + ErrorCode.INVALID_REQUEST.code(), "audit=0"),
                delete("orders", "audit", "orders"));
        assertTrue(metadata.image().topics().containsKey("orders"));
    }

    /**
     * An internal topic is deleted like any other, as Kafka's controller does: neither ControllerApis.deleteTopics
     * nor ReplicationControlManager.deleteTopic checks Topic.isInternal (only kafka-topics --zookeeper refused it,
     * client-side, until KAFKA-12596 removed that path in 3.0).
     */
    @Test
    void anInternalTopicIsDeletedLikeAnyOtherAsKafkasControllerDoes() {
        assertEquals(List.of(TransactionCoordinator.TOPIC + "=0"), delete(TransactionCoordinator.TOPIC));
        assertFalse(metadata.image().topics().containsKey(TransactionCoordinator.TOPIC));
    }

    @Test
    void aBrokerThatIsNotTheControllerAnswersNotController() {
        metadata.setControllerId(3);
        assertEquals(List.of("orders=" + ErrorCode.NOT_CONTROLLER.code()), delete("orders"));
        assertTrue(metadata.submitted().isEmpty());
    }
}
