package dev.cairn.broker.api;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.AddOffsetsToTxnRequest;
import dev.cairn.protocol.message.AddOffsetsToTxnResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * AddOffsetsToTxn (key 25), versions 0-3: the producer's transaction will commit a group's offsets. Kafka adds the
 * group's {@code __consumer_offsets} partition here; Cairn keeps committed offsets in each partition's own group,
 * so the transaction is only opened now, and TxnOffsetCommit names the partitions whose offsets it commits.
 */
public final class AddOffsetsToTxnHandler implements RequestHandler {
    private final TransactionCoordinator coordinator;

    public AddOffsetsToTxnHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String transactionalId = body.get(AddOffsetsToTxnRequest.TRANSACTIONAL_ID);
        if (!context.session().allowed(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
            return CompletableFuture.completedFuture(response(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
        if (!context.session().allowedOnGroup(AclOperation.READ, body.get(AddOffsetsToTxnRequest.GROUP_ID))) {
            return CompletableFuture.completedFuture(response(ErrorCode.GROUP_AUTHORIZATION_FAILED));
        }
        return coordinator.submit(transactionalId, new Command.TxnAddPartitions(transactionalId,
                body.get(AddOffsetsToTxnRequest.PRODUCER_ID), body.get(AddOffsetsToTxnRequest.PRODUCER_EPOCH),
                List.of(), false, coordinator.nowMs())).thenApply(answer -> response(answer.error()));
    }

    private static Struct response(ErrorCode error) {
        return new Struct(AddOffsetsToTxnResponse.SCHEMA)
                .set(AddOffsetsToTxnResponse.THROTTLE_TIME_MS, 0)
                .set(AddOffsetsToTxnResponse.ERROR_CODE, error.code());
    }
}
