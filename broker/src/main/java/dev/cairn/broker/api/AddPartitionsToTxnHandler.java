package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.AddPartitionsToTxnRequest;
import dev.cairn.protocol.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import dev.cairn.protocol.message.AddPartitionsToTxnResponse;
import dev.cairn.protocol.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import dev.cairn.protocol.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * AddPartitionsToTxn (key 24), versions 0-3 (the client's form; 4+ is Kafka's broker-to-broker batch): the
 * producer's transaction will write these partitions, so the coordinator writes its markers to them when it ends.
 * As in Kafka, a request naming a partition that does not exist or may not be written adds none: those partitions
 * get their error, the others OPERATION_NOT_ATTEMPTED.
 */
public final class AddPartitionsToTxnHandler implements RequestHandler {
    private final MetadataService metadata;
    private final TransactionCoordinator coordinator;

    public AddPartitionsToTxnHandler(MetadataService metadata, TransactionCoordinator coordinator) {
        this.metadata = metadata;
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String transactionalId = body.get(AddPartitionsToTxnRequest.V3_AND_BELOW_TRANSACTIONAL_ID);
        Map<TxnPartition, ErrorCode> checked = new LinkedHashMap<>();
        boolean anyRefused = false;
        boolean idAllowed = context.session().allowed(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID,
                transactionalId);
        for (Struct topic : body.get(AddPartitionsToTxnRequest.V3_AND_BELOW_TOPICS)) {
            String name = topic.get(AddPartitionsToTxnTopic.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            boolean writable = context.session().allowedOnTopic(AclOperation.WRITE, name);
            for (int partition : topic.get(AddPartitionsToTxnTopic.PARTITIONS)) {
                ErrorCode error = !idAllowed ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                        : !writable ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
                        : info == null || partition < 0 || partition >= info.partitionCount()
                        ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE;
                checked.put(new TxnPartition(name, partition), error);
                anyRefused |= error != ErrorCode.NONE;
            }
        }
        if (anyRefused) {
            checked.replaceAll((tp, error) -> error == ErrorCode.NONE ? ErrorCode.OPERATION_NOT_ATTEMPTED : error);
            return CompletableFuture.completedFuture(response(checked));
        }
        Command add = new Command.TxnAddPartitions(transactionalId,
                body.get(AddPartitionsToTxnRequest.V3_AND_BELOW_PRODUCER_ID),
                body.get(AddPartitionsToTxnRequest.V3_AND_BELOW_PRODUCER_EPOCH), new ArrayList<>(checked.keySet()),
                false, coordinator.nowMs());
        return coordinator.submit(transactionalId, add).thenApply((Result.TxnAnswer answer) -> {
            checked.replaceAll((tp, none) -> answer.error());
            return response(checked);
        });
    }

    private static Struct response(Map<TxnPartition, ErrorCode> errors) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        errors.forEach((tp, error) -> byTopic.computeIfAbsent(tp.topic(), name -> new ArrayList<>())
                .add(new Struct(AddPartitionsToTxnPartitionResult.SCHEMA)
                        .set(AddPartitionsToTxnPartitionResult.PARTITION_INDEX, tp.partition())
                        .set(AddPartitionsToTxnPartitionResult.PARTITION_ERROR_CODE, error.code())));
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, results) -> topics.add(new Struct(AddPartitionsToTxnTopicResult.SCHEMA)
                .set(AddPartitionsToTxnTopicResult.NAME, name)
                .set(AddPartitionsToTxnTopicResult.RESULTS_BY_PARTITION, results)));
        return new Struct(AddPartitionsToTxnResponse.SCHEMA)
                .set(AddPartitionsToTxnResponse.THROTTLE_TIME_MS, 0)
                .set(AddPartitionsToTxnResponse.RESULTS_BY_TOPIC_V3_AND_BELOW, topics);
    }
}
