package dev.cairn.broker.api;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.EndTxnRequest;
import dev.cairn.protocol.message.EndTxnResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/**
 * EndTxn (key 26), versions 0-4: the producer commits or aborts its transaction. As in Kafka the answer comes once
 * the decision is durable in the coordinator's partition; the markers are written after it
 * ({@link TransactionMarkerWriter}), and until they are the producer's next transaction waits
 * (CONCURRENT_TRANSACTIONS, which it retries) and read_committed readers stop before the transaction.
 */
public final class EndTxnHandler implements RequestHandler {
    private final TransactionCoordinator coordinator;

    public EndTxnHandler(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String transactionalId = body.get(EndTxnRequest.TRANSACTIONAL_ID);
        if (!context.session().allowed(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
            return CompletableFuture.completedFuture(response(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
        return coordinator.submit(transactionalId, new Command.TxnEnd(transactionalId,
                body.get(EndTxnRequest.PRODUCER_ID), body.get(EndTxnRequest.PRODUCER_EPOCH),
                body.get(EndTxnRequest.COMMITTED), false, coordinator.nowMs()))
                .thenApply(answer -> response(answer.error()));
    }

    private static Struct response(ErrorCode error) {
        return new Struct(EndTxnResponse.SCHEMA)
                .set(EndTxnResponse.THROTTLE_TIME_MS, 0)
                .set(EndTxnResponse.ERROR_CODE, error.code());
    }
}
