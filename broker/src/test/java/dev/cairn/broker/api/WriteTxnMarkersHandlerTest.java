package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionTestBatches;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.WriteTxnMarkersRequest;
import dev.cairn.protocol.message.WriteTxnMarkersRequest.WritableTxnMarker;
import dev.cairn.protocol.message.WriteTxnMarkersRequest.WritableTxnMarkerTopic;
import dev.cairn.protocol.message.WriteTxnMarkersResponse;
import dev.cairn.protocol.message.WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult;
import dev.cairn.protocol.message.WriteTxnMarkersResponse.WritableTxnMarkerResult;
import dev.cairn.protocol.message.WriteTxnMarkersResponse.WritableTxnMarkerTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** WriteTxnMarkers as kafka-transactions.sh abort sends it: a marker through each partition's group, at its leader. */
class WriteTxnMarkersHandlerTest {
    private static final long PRODUCER = 7_000L;
    private static final TopicPartition TXN_0 = new TopicPartition("txn", 0);
    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1).withTopic("txn", 2, 1);
    private final FakeReplicatedPartitions partitions = new FakeReplicatedPartitions();
    private final WriteTxnMarkersHandler handler = new WriteTxnMarkersHandler(metadata, partitions, () -> 5_000L);
    private Partition partition;

    @BeforeEach
    void anOpenTransaction() {
        partition = partitions.leadLocally(TXN_0);
        partitions.apply(TXN_0, new Command.Append(PartitionTestBatches.transactional(2, PRODUCER, (short) 3, 0),
                1_000L));
        assertEquals(0, partition.lastStableOffset());
    }

    private static Struct marker(short epoch, String topic, Integer... partitions) {
        return new Struct(WritableTxnMarker.SCHEMA).set(WritableTxnMarker.PRODUCER_ID, PRODUCER)
                .set(WritableTxnMarker.PRODUCER_EPOCH, epoch).set(WritableTxnMarker.TRANSACTION_RESULT, false)
                .set(WritableTxnMarker.COORDINATOR_EPOCH, 0)
                .set(WritableTxnMarker.TOPICS, List.of(new Struct(WritableTxnMarkerTopic.SCHEMA)
                        .set(WritableTxnMarkerTopic.NAME, topic)
                        .set(WritableTxnMarkerTopic.PARTITION_INDEXES, List.of(partitions))));
    }

    /** Every partition's error code, in request order. */
    private static List<ErrorCode> errors(Struct response) {
        List<ErrorCode> errors = new ArrayList<>();
        for (Struct marker : response.get(WriteTxnMarkersResponse.MARKERS)) {
            assertEquals(PRODUCER, marker.get(WritableTxnMarkerResult.PRODUCER_ID));
            for (Struct topic : marker.get(WritableTxnMarkerResult.TOPICS)) {
                for (Struct result : topic.get(WritableTxnMarkerTopicResult.PARTITIONS)) {
                    errors.add(ErrorCode.forCode(result.get(WritableTxnMarkerPartitionResult.ERROR_CODE)));
                }
            }
        }
        return errors;
    }

    private Struct write(RequestContext context, Struct... markers) {
        return call(handler, request(ApiKey.WRITE_TXN_MARKERS, 1, new Struct(WriteTxnMarkersRequest.SCHEMA)
                .set(WriteTxnMarkersRequest.MARKERS, List.of(markers))), context);
    }

    @Test
    void anAbortMarkerEndsTheOpenTransactionAtTheLeader() {
        Struct response = write(ApiTestSupport.CONTEXT, marker((short) 3, "txn", 0, 1), marker((short) 3, "gone", 0));
        assertEquals(List.of(ErrorCode.NONE, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
                errors(response));
        assertEquals(3, partition.highWatermark(), "two records and the marker");
        assertEquals(3, partition.lastStableOffset(), "nothing open any more");
        assertEquals(1, partition.abortedTransactions(0, 3).size());
    }

    @Test
    void aMarkerOlderThanTheProducersEpochIsRefused() {
        assertEquals(List.of(ErrorCode.INVALID_PRODUCER_EPOCH), errors(write(ApiTestSupport.CONTEXT,
                marker((short) 2, "txn", 0))));
        assertEquals(0, partition.lastStableOffset());
    }

    @Test
    void withoutClusterActionNothingIsWritten() {
        AccessControl access = new AccessControl(true, Set.of(), false, () -> metadata.image().acls());
        RequestContext anonymous = new RequestContext(1, "127.0.0.1:1", ConnectionSession.of(false, access,
                "127.0.0.1"));
        int before = partitions.submitted().size();
        assertEquals(List.of(ErrorCode.CLUSTER_AUTHORIZATION_FAILED), errors(write(anonymous,
                marker((short) 3, "txn", 0))));
        assertTrue(partitions.submitted().size() == before, "nothing submitted");
    }
}
