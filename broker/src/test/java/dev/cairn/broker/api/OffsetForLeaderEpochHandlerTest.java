package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.schema.Struct;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OffsetForLeaderEpoch v2-4 (KIP-320) on the partition's leader: each epoch's end offset from the epochs stored
 * batches carry, the current epoch ending at the log end, Kafka's fencing by the client's current leader epoch, and
 * the errors for a partition this broker does not lead or that does not exist.
 */
class OffsetForLeaderEpochHandlerTest {
    /** FakeReplicatedPartitions' leader epoch (the Raft term) for every partition it leads. */
    private static final int CURRENT_EPOCH = 3;
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1, 2).withTopic("orders", 2, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final OffsetForLeaderEpochHandler handler = new OffsetForLeaderEpochHandler(metadata, partitions);
    private long raftIndex;

    /** Offsets 0-2 written in epoch 1, 3-4 in epoch 2; epoch 3 leads and has written nothing yet. */
    @BeforeEach
    void produce() {
        Partition partition = partitions.leadLocally(ORDERS_0);
        append(partition, 1, 3);
        append(partition, 2, 2);
        partitions.ledElsewhere(ORDERS_1, 2);
    }

    private void append(Partition partition, int epoch, int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        for (int i = 0; i < records; i++) {
            builder.append(1_000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        assertInstanceOf(Result.Appended.class, partition.apply(++raftIndex, epoch,
                new Command.Append(builder.build(), 9_000)));
    }

    private Struct ask(int version, TopicPartition tp, int currentEpoch, int epoch) {
        Struct body = new Struct(OffsetForLeaderEpochRequest.SCHEMA)
                .set(OffsetForLeaderEpochRequest.REPLICA_ID, -1)
                .set(OffsetForLeaderEpochRequest.TOPICS, List.of(new Struct(OffsetForLeaderTopic.SCHEMA)
                        .set(OffsetForLeaderTopic.TOPIC, tp.topic())
                        .set(OffsetForLeaderTopic.PARTITIONS, List.of(new Struct(OffsetForLeaderPartition.SCHEMA)
                                .set(OffsetForLeaderPartition.PARTITION, tp.partition())
                                .set(OffsetForLeaderPartition.CURRENT_LEADER_EPOCH, currentEpoch)
                                .set(OffsetForLeaderPartition.LEADER_EPOCH, epoch)))));
        Struct response = call(handler, request(ApiKey.OFFSET_FOR_LEADER_EPOCH, version, body));
        Struct topic = response.get(OffsetForLeaderEpochResponse.TOPICS).get(0);
        assertEquals(tp.topic(), topic.get(OffsetForLeaderTopicResult.TOPIC));
        Struct partition = topic.get(OffsetForLeaderTopicResult.PARTITIONS).get(0);
        assertEquals(tp.partition(), partition.get(EpochEndOffset.PARTITION));
        return partition;
    }

    private static void assertAnswer(Struct answer, ErrorCode error, int epoch, long endOffset) {
        assertEquals(error.code(), answer.get(EpochEndOffset.ERROR_CODE));
        assertEquals(epoch, answer.get(EpochEndOffset.LEADER_EPOCH));
        assertEquals(endOffset, answer.get(EpochEndOffset.END_OFFSET));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void eachEpochEndsWhereTheNextBegins(int version) {
        assertAnswer(ask(version, ORDERS_0, CURRENT_EPOCH, 1), ErrorCode.NONE, 1, 3);
        assertAnswer(ask(version, ORDERS_0, CURRENT_EPOCH, 2), ErrorCode.NONE, 2, 5);
        assertAnswer(ask(version, ORDERS_0, CURRENT_EPOCH, 3), ErrorCode.NONE, 3, 5);
        assertAnswer(ask(version, ORDERS_0, -1, 0), ErrorCode.NONE, 0, 0);
        assertAnswer(ask(version, ORDERS_0, -1, 4), ErrorCode.NONE, -1, -1);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void fencesByTheClientsCurrentEpochAndAnswersOnlyAsLeader(int version) {
        assertAnswer(ask(version, ORDERS_0, CURRENT_EPOCH - 1, 1), ErrorCode.FENCED_LEADER_EPOCH, -1, -1);
        assertAnswer(ask(version, ORDERS_0, CURRENT_EPOCH + 1, 1), ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1);
        assertAnswer(ask(version, ORDERS_1, CURRENT_EPOCH, 1), ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1);
        assertAnswer(ask(version, new TopicPartition("orders", 9), -1, 1), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                -1, -1);
        assertAnswer(ask(version, new TopicPartition("absent", 0), -1, 1), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                -1, -1);
    }
}
