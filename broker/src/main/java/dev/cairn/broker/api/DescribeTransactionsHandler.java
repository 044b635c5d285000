package dev.cairn.broker.api;

import dev.cairn.broker.partition.TransactionRecord;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeTransactionsRequest;
import dev.cairn.protocol.message.DescribeTransactionsResponse;
import dev.cairn.protocol.message.DescribeTransactionsResponse.TopicData;
import dev.cairn.protocol.message.DescribeTransactionsResponse.TransactionState;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeTransactions (key 65), version 0, at each id's coordinator: state, timeout, start time, producer id and
 * epoch, and the partitions of the current transaction. An id coordinated elsewhere is NOT_COORDINATOR (the client
 * looks it up and asks again); one this coordinator does not know is TRANSACTIONAL_ID_NOT_FOUND.
 */
public final class DescribeTransactionsHandler implements RequestHandler {
    private final TransactionCoordinator coordinator;

    public DescribeTransactionsHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> described = new ArrayList<>();
        for (String id : request.body().get(DescribeTransactionsRequest.TRANSACTIONAL_IDS)) {
            described.add(describe(context, id));
        }
        return CompletableFuture.completedFuture(new Struct(DescribeTransactionsResponse.SCHEMA)
                .set(DescribeTransactionsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeTransactionsResponse.TRANSACTION_STATES, described));
    }

    private Struct describe(RequestContext context, String id) {
        if (!context.session().allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id)) {
            return error(id, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        Optional<TransactionRecord> found;
        try {
            found = coordinator.describe(id);
        } catch (TransactionCoordinator.NotCoordinatorException e) {
            return error(id, ErrorCode.NOT_COORDINATOR);
        }
        if (found.isEmpty()) {
            return error(id, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
        }
        TransactionRecord record = found.get();
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TxnPartition tp : record.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), topic -> new ArrayList<>()).add(tp.partition());
        }
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> topics.add(new Struct(TopicData.SCHEMA)
                .set(TopicData.TOPIC, topic).set(TopicData.PARTITIONS, partitions)));
        return new Struct(TransactionState.SCHEMA)
                .set(TransactionState.ERROR_CODE, ErrorCode.NONE.code())
                .set(TransactionState.TRANSACTIONAL_ID, id)
                .set(TransactionState.TRANSACTION_STATE, TransactionCoordinator.stateName(record.status()))
                .set(TransactionState.TRANSACTION_TIMEOUT_MS, record.timeoutMs())
                .set(TransactionState.TRANSACTION_START_TIME_MS, record.startMs())
                .set(TransactionState.PRODUCER_ID, record.producerId())
                .set(TransactionState.PRODUCER_EPOCH, record.producerEpoch())
                .set(TransactionState.TOPICS, topics);
    }

    private static Struct error(String id, ErrorCode error) {
        return new Struct(TransactionState.SCHEMA)
                .set(TransactionState.ERROR_CODE, error.code())
                .set(TransactionState.TRANSACTIONAL_ID, id)
                .set(TransactionState.TRANSACTION_STATE, "")
                .set(TransactionState.TRANSACTION_TIMEOUT_MS, 0)
                .set(TransactionState.TRANSACTION_START_TIME_MS, -1L)
                .set(TransactionState.PRODUCER_ID, -1L)
                .set(TransactionState.PRODUCER_EPOCH, (short) -1)
                .set(TransactionState.TOPICS, List.of());
    }
}
