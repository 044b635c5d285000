package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
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
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * WriteTxnMarkers (key 27), version 1, at each partition's leader: writes a commit or abort marker for a producer,
 * as a {@link Command.TxnMarker} through the partition's group (the same command the coordinator's own markers are).
 * Cairn's coordinator does not send it between brokers (docs/transactions.md); clients do, to end a hanging
 * transaction by hand: {@code kafka-transactions.sh abort} and Admin's {@code abortTransaction}. Needs
 * CLUSTER_ACTION on the cluster, as in Kafka. A marker older than the producer's epoch at the partition is refused
 * (INVALID_PRODUCER_EPOCH); version 2 (transaction version 2 markers) is not served.
 */
public final class WriteTxnMarkersHandler implements RequestHandler {
    /** How long one partition's marker may take to commit (Kafka's default request timeout). */
    static final long MARKER_TIMEOUT_MS = 30_000;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final LongSupplier clockMs;

    public WriteTxnMarkersHandler(MetadataService metadata, ReplicatedPartitions partitions, LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        boolean allowed = context.session().allowedOnCluster(AclOperation.CLUSTER_ACTION);
        List<CompletableFuture<Struct>> markers = new ArrayList<>();
        for (Struct marker : request.body().get(WriteTxnMarkersRequest.MARKERS)) {
            Command.TxnMarker command = new Command.TxnMarker(marker.get(WritableTxnMarker.PRODUCER_ID),
                    marker.get(WritableTxnMarker.PRODUCER_EPOCH), marker.get(WritableTxnMarker.TRANSACTION_RESULT),
                    marker.get(WritableTxnMarker.COORDINATOR_EPOCH), clockMs.getAsLong());
            List<CompletableFuture<Struct>> topics = new ArrayList<>();
            for (Struct topic : marker.get(WritableTxnMarker.TOPICS)) {
                String name = topic.get(WritableTxnMarkerTopic.NAME);
                TopicInfo info = metadata.image().topics().get(name);
                List<CompletableFuture<Struct>> results = new ArrayList<>();
                for (int index : topic.get(WritableTxnMarkerTopic.PARTITION_INDEXES)) {
                    results.add(!allowed ? result(index, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
                            : info == null || index < 0 || index >= info.partitionCount()
                            ? result(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                            : write(new TopicPartition(name, index), command));
                }
                topics.add(ProduceHandler.allOf(results).thenApply(list -> new Struct(
                        WritableTxnMarkerTopicResult.SCHEMA).set(WritableTxnMarkerTopicResult.NAME, name)
                        .set(WritableTxnMarkerTopicResult.PARTITIONS, list)));
            }
            markers.add(ProduceHandler.allOf(topics).thenApply(list -> new Struct(WritableTxnMarkerResult.SCHEMA)
                    .set(WritableTxnMarkerResult.PRODUCER_ID, command.producerId())
                    .set(WritableTxnMarkerResult.TOPICS, list)));
        }
        return ProduceHandler.allOf(markers).thenApply(list -> new Struct(WriteTxnMarkersResponse.SCHEMA)
                .set(WriteTxnMarkersResponse.MARKERS, list));
    }

    private CompletableFuture<Struct> write(TopicPartition tp, Command.TxnMarker marker) {
        if (!partitions.leadership(tp).local()) {
            return result(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        return partitions.submit(tp, marker, MARKER_TIMEOUT_MS).thenApply(written -> new Struct(
                WritableTxnMarkerPartitionResult.SCHEMA)
                .set(WritableTxnMarkerPartitionResult.PARTITION_INDEX, tp.partition())
                .set(WritableTxnMarkerPartitionResult.ERROR_CODE, (written instanceof Result.Rejected rejected
                        ? rejected.error() : ErrorCode.NONE).code()));
    }

    private static CompletableFuture<Struct> result(int partition, ErrorCode error) {
        return CompletableFuture.completedFuture(new Struct(WritableTxnMarkerPartitionResult.SCHEMA)
                .set(WritableTxnMarkerPartitionResult.PARTITION_INDEX, partition)
                .set(WritableTxnMarkerPartitionResult.ERROR_CODE, error.code()));
    }
}
