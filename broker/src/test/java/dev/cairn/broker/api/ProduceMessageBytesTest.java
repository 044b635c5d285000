package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceRequest.PartitionProduceData;
import dev.cairn.protocol.message.ProduceRequest.TopicProduceData;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.PartitionProduceResponse;
import dev.cairn.protocol.message.ProduceResponse.TopicProduceResponse;
import dev.cairn.protocol.record.BatchValidationConfig;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A topic's max.message.bytes against the broker's message.max.bytes (the default here: 1 MiB) and against what the
 * Raft groups carry (4 MiB here): as in Kafka, a topic may allow more than the broker's default, up to that bound; any
 * value, 0 included, answers MESSAGE_TOO_LARGE for a batch above it rather than failing the request.
 */
class ProduceMessageBytesTest {
    private static final int GROUPS_CARRY = 4 * 1024 * 1024;
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1)
            .withTopic("plain", 1, 1)
            .withTopic("big", 1, 1, Map.of("max.message.bytes", Integer.toString(10 * 1024 * 1024)))
            .withTopic("tiny", 1, 1, Map.of("max.message.bytes", "0"));
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final ProduceHandler handler = new ProduceHandler(metadata, partitions, BatchValidationConfig.DEFAULTS,
            GROUPS_CARRY, System::currentTimeMillis, null);

    private ErrorCode produce(String topic, int valueBytes) {
        partitions.leadLocally(new TopicPartition(topic, 0));
        ByteBuffer batch = new RecordBatchBuilder(CompressionType.NONE)
                .append(System.currentTimeMillis(), null, new byte[valueBytes]).build();
        Struct body = new Struct(ProduceRequest.SCHEMA).set(ProduceRequest.ACKS, (short) -1)
                .set(ProduceRequest.TIMEOUT_MS, 30_000).set(ProduceRequest.TOPIC_DATA, List.of(
                        new Struct(TopicProduceData.SCHEMA).set(TopicProduceData.NAME, topic)
                                .set(TopicProduceData.PARTITION_DATA, List.of(new Struct(PartitionProduceData.SCHEMA)
                                        .set(PartitionProduceData.INDEX, 0)
                                        .set(PartitionProduceData.RECORDS, ByteBufferRecords.of(batch))))));
        Struct response = call(handler, request(ApiKey.PRODUCE, 7, body));
        Struct partition = response.get(ProduceResponse.RESPONSES).get(0)
                .get(TopicProduceResponse.PARTITION_RESPONSES).get(0);
        return ErrorCode.forCode(partition.get(PartitionProduceResponse.ERROR_CODE));
    }

    @Test
    void aTopicWithoutItsOwnLimitTakesTheBrokers() {
        assertEquals(ErrorCode.NONE, produce("plain", 1000));
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, produce("plain", 2 * 1024 * 1024));
    }

    @Test
    void aTopicMayAllowMoreThanTheBrokerUpToWhatItsGroupsCarry() {
        assertEquals(ErrorCode.NONE, produce("big", 2 * 1024 * 1024));
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, produce("big", GROUPS_CARRY + 1));
    }

    @Test
    void aTopicLimitOfZeroRefusesEveryBatch() {
        assertEquals(ErrorCode.MESSAGE_TOO_LARGE, produce("tiny", 1));
    }
}
