package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.DeleteRecordsRequest;
import dev.cairn.protocol.message.DeleteRecordsRequest.DeleteRecordsPartition;
import dev.cairn.protocol.message.DeleteRecordsRequest.DeleteRecordsTopic;
import dev.cairn.protocol.message.DeleteRecordsResponse;
import dev.cairn.protocol.message.DeleteRecordsResponse.DeleteRecordsPartitionResult;
import dev.cairn.protocol.message.DeleteRecordsResponse.DeleteRecordsTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import org.junit.jupiter.api.Test;

/** DeleteRecords (Admin.deleteRecords, kafka-delete-records): the checks made before the partition's group acts. */
class DeleteRecordsHandlerTest {
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1)
            .withTopic(TransactionCoordinator.TOPIC, 1, 1).withTopic("orders", 1, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final DeleteRecordsHandler handler = new DeleteRecordsHandler(metadata, partitions);

    /**
     * The records of an internal topic cannot be deleted: Kafka's ReplicaManager.deleteRecordsOnLocalLog answers
     * INVALID_TOPIC_EXCEPTION ("Cannot delete records of internal topic"), and nothing reaches the partition.
     */
    @Test
    void theRecordsOfAnInternalTopicCannotBeDeleted() {
        partitions.leadLocally(new TopicPartition(TransactionCoordinator.TOPIC, 0));
        Struct partition = new Struct(DeleteRecordsPartition.SCHEMA).set(DeleteRecordsPartition.PARTITION_INDEX, 0)
                .set(DeleteRecordsPartition.OFFSET, -1L);
        Struct body = new Struct(DeleteRecordsRequest.SCHEMA).set(DeleteRecordsRequest.TIMEOUT_MS, 5_000)
                .set(DeleteRecordsRequest.TOPICS, List.of(new Struct(DeleteRecordsTopic.SCHEMA)
                        .set(DeleteRecordsTopic.NAME, TransactionCoordinator.TOPIC)
                        .set(DeleteRecordsTopic.PARTITIONS, List.of(partition))));
        Struct response = call(handler, request(ApiKey.DELETE_RECORDS, 2, body));
        Struct result = response.get(DeleteRecordsResponse.TOPICS).get(0).get(DeleteRecordsTopicResult.PARTITIONS)
                .get(0);
        assertEquals(ErrorCode.INVALID_TOPIC_EXCEPTION.code(), result.get(DeleteRecordsPartitionResult.ERROR_CODE));
        assertEquals(-1L, result.get(DeleteRecordsPartitionResult.LOW_WATERMARK));
        assertTrue(partitions.submitted().isEmpty());
    }
}
