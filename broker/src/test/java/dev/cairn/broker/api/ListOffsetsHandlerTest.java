package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsPartition;
import dev.cairn.protocol.message.ListOffsetsRequest.ListOffsetsTopic;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import dev.cairn.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.schema.Struct;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ListOffsets v1-2 (kafka-protocol.md A.1: the consumer's offset reset and seek): earliest (-2), latest (-1) and
 * by timestamp (the first record at or after it, with its own timestamp; offset -1 and timestamp -1 past the
 * end), answered by the leader only, with Kafka's error codes.
 */
class ListOffsetsHandlerTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1, 2)
            .withTopic("orders", 2, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final ListOffsetsHandler handler = new ListOffsetsHandler(metadata, partitions);

    @BeforeEach
    void produce() {
        partitions.leadLocally(ORDERS_0);
        // Offsets 0-2 at 1000, 1100, 1200 ms; offsets 3-4 at 2000, 2100 ms (gzip, so the records are inflated).
        append(CompressionType.NONE, 1_000, 1_100, 1_200);
        append(CompressionType.GZIP, 2_000, 2_100);
    }

    private void append(CompressionType compression, long... timestampsMs) {
        RecordBatchBuilder builder = new RecordBatchBuilder(compression);
        for (long timestampMs : timestampsMs) {
            builder.append(timestampMs, null, ("v" + timestampMs).getBytes(StandardCharsets.UTF_8));
        }
        assertInstanceOf(Result.Appended.class, partitions.apply(ORDERS_0, new Command.Append(builder.build(), 9_000)));
    }

    private Struct listOffsets(int version, String topic, int partition, long timestampMs) {
        Struct body = new Struct(ListOffsetsRequest.SCHEMA)
                .set(ListOffsetsRequest.REPLICA_ID, -1)
                .set(ListOffsetsRequest.TOPICS, List.of(topic(topic, partition, timestampMs)));
        Struct response = call(handler, request(ApiKey.LIST_OFFSETS, version, body));
        Struct topicResponse = response.get(ListOffsetsResponse.TOPICS).get(0);
        assertEquals(topic, topicResponse.get(ListOffsetsTopicResponse.NAME));
        Struct partitionResponse = topicResponse.get(ListOffsetsTopicResponse.PARTITIONS).get(0);
        assertEquals(partition, partitionResponse.get(ListOffsetsPartitionResponse.PARTITION_INDEX));
        return partitionResponse;
    }

    private static Struct topic(String name, int partition, long timestampMs) {
        return new Struct(ListOffsetsTopic.SCHEMA).set(ListOffsetsTopic.NAME, name)
                .set(ListOffsetsTopic.PARTITIONS, List.of(new Struct(ListOffsetsPartition.SCHEMA)
                        .set(ListOffsetsPartition.PARTITION_INDEX, partition)
                        .set(ListOffsetsPartition.TIMESTAMP, timestampMs)));
    }

    private static void assertAnswer(ErrorCode error, long timestampMs, long offset, Struct partition) {
        assertEquals(error.code(), partition.get(ListOffsetsPartitionResponse.ERROR_CODE), "error code");
        assertEquals(timestampMs, partition.get(ListOffsetsPartitionResponse.TIMESTAMP), "timestamp");
        assertEquals(offset, partition.get(ListOffsetsPartitionResponse.OFFSET), "offset");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void earliestIsTheLogStartOffsetWithoutTimestamp(int version) {
        assertAnswer(ErrorCode.NONE, -1, 0, listOffsets(version, "orders", 0, ListOffsetsHandler.EARLIEST_TIMESTAMP));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void latestIsTheHighWatermarkWithoutTimestamp(int version) {
        assertAnswer(ErrorCode.NONE, -1, 5, listOffsets(version, "orders", 0, ListOffsetsHandler.LATEST_TIMESTAMP));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void timestampFindsTheFirstRecordAtOrAfterIt(int version) {
        assertAnswer(ErrorCode.NONE, 1_000, 0, listOffsets(version, "orders", 0, 0));
        assertAnswer(ErrorCode.NONE, 1_000, 0, listOffsets(version, "orders", 0, 1_000));
        assertAnswer(ErrorCode.NONE, 1_100, 1, listOffsets(version, "orders", 0, 1_001));
        assertAnswer(ErrorCode.NONE, 1_200, 2, listOffsets(version, "orders", 0, 1_200));
        assertAnswer(ErrorCode.NONE, 2_000, 3, listOffsets(version, "orders", 0, 1_201));
        assertAnswer(ErrorCode.NONE, 2_100, 4, listOffsets(version, "orders", 0, 2_050));
    }

    /** KIP-734: the record with the largest timestamp, even when a later record has an older one. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void maxTimestampIsTheRecordWithTheLargestTimestamp(int version) {
        append(CompressionType.NONE, 1_500, 1_600);
        assertAnswer(ErrorCode.NONE, 2_100, 4, listOffsets(version, "orders", 0, ListOffsetsHandler.MAX_TIMESTAMP));
        append(CompressionType.GZIP, 1_700, 2_100, 2_100);
        assertAnswer(ErrorCode.NONE, 2_100, 4, listOffsets(version, "orders", 0, ListOffsetsHandler.MAX_TIMESTAMP));
        append(CompressionType.GZIP, 1_800, 2_200, 1_900);
        assertAnswer(ErrorCode.NONE, 2_200, 11, listOffsets(version, "orders", 0, ListOffsetsHandler.MAX_TIMESTAMP));
        partitions.leadLocally(ORDERS_1);
        assertAnswer(ErrorCode.NONE, -1, -1, listOffsets(version, "orders", 1, ListOffsetsHandler.MAX_TIMESTAMP));
    }

    /** Sentinels of later versions are refused, never searched for as a time before 1970. */
    @ParameterizedTest
    @ValueSource(longs = {-4, -5, -6, -100})
    void laterSentinelsAreUnsupported(long timestampMs) {
        assertAnswer(ErrorCode.UNSUPPORTED_VERSION, -1, -1, listOffsets(2, "orders", 0, timestampMs));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void timestampAfterEveryRecordAnswersNoOffset(int version) {
        assertAnswer(ErrorCode.NONE, -1, -1, listOffsets(version, "orders", 0, 2_101));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void emptyPartitionAnswersTheSameOffsetForEarliestAndLatest(int version) {
        partitions.leadLocally(ORDERS_1);
        assertAnswer(ErrorCode.NONE, -1, 0, listOffsets(version, "orders", 1, ListOffsetsHandler.EARLIEST_TIMESTAMP));
        assertAnswer(ErrorCode.NONE, -1, 0, listOffsets(version, "orders", 1, ListOffsetsHandler.LATEST_TIMESTAMP));
        assertAnswer(ErrorCode.NONE, -1, -1, listOffsets(version, "orders", 1, 1_000));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void unknownTopicOrPartition(int version) {
        assertAnswer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, listOffsets(version, "payments", 0, -1));
        assertAnswer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, listOffsets(version, "orders", 2, -1));
        assertAnswer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, listOffsets(version, "orders", -1, -1));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void onlyTheLeaderAnswers(int version) {
        partitions.ledElsewhere(ORDERS_1, 2);
        assertAnswer(ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1, listOffsets(version, "orders", 1, -2));
        partitions.ledElsewhere(ORDERS_0, 2);
        assertAnswer(ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1, listOffsets(version, "orders", 0, -1));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aPartitionNamedTwiceIsAnInvalidRequestAndOthersAreAnswered(int version) {
        List<Struct> topics = new ArrayList<>();
        topics.add(new Struct(ListOffsetsTopic.SCHEMA).set(ListOffsetsTopic.NAME, "orders")
                .set(ListOffsetsTopic.PARTITIONS, List.of(
                        new Struct(ListOffsetsPartition.SCHEMA).set(ListOffsetsPartition.PARTITION_INDEX, 0)
                                .set(ListOffsetsPartition.TIMESTAMP, -1L),
                        new Struct(ListOffsetsPartition.SCHEMA).set(ListOffsetsPartition.PARTITION_INDEX, 0)
                                .set(ListOffsetsPartition.TIMESTAMP, -2L))));
        topics.add(topic("orders", 1, -1));
        Struct body = new Struct(ListOffsetsRequest.SCHEMA).set(ListOffsetsRequest.REPLICA_ID, -1)
                .set(ListOffsetsRequest.TOPICS, topics);
        partitions.leadLocally(ORDERS_1);
        Struct response = call(handler, request(ApiKey.LIST_OFFSETS, version, body));
        List<Struct> first = response.get(ListOffsetsResponse.TOPICS).get(0).get(ListOffsetsTopicResponse.PARTITIONS);
        assertAnswer(ErrorCode.INVALID_REQUEST, -1, -1, first.get(0));
        assertAnswer(ErrorCode.INVALID_REQUEST, -1, -1, first.get(1));
        Struct second = response.get(ListOffsetsResponse.TOPICS).get(1).get(ListOffsetsTopicResponse.PARTITIONS)
                .get(0);
        assertAnswer(ErrorCode.NONE, -1, 0, second);
    }
}
