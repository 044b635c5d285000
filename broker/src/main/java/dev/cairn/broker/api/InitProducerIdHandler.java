package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.InitProducerIdRequest;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.concurrent.CompletableFuture;

/**
 * InitProducerId (key 22). For idempotent producers: a cluster-unique producer id with epoch 0, from blocks reserved
 * through the metadata group ({@link ProducerIds}); as in Kafka, a request without a transactional id always gets a
 * fresh id, even when it names its old id and epoch (v3+, KIP-360). With a transactional id, the transaction
 * coordinator answers ({@link TransactionCoordinator}): the id's producer id and a new epoch, fencing the previous
 * session, whose open transaction is aborted first.
 */
public final class InitProducerIdHandler implements RequestHandler {
    private final ProducerIds producerIds;
    private final TransactionCoordinator transactions;

    public InitProducerIdHandler(ProducerIds producerIds, TransactionCoordinator transactions) {
        this.producerIds = producerIds;
        this.transactions = transactions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String transactionalId = body.get(InitProducerIdRequest.TRANSACTIONAL_ID);
        ConnectionSession session = context.session();
        if (transactionalId != null) {
            if (transactionalId.isEmpty()) {
                // As Kafka: an empty transactional id is a malformed request, not an id.
                return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, -1, (short) -1));
            }
            if (!session.allowed(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
                return CompletableFuture.completedFuture(response(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                        -1, (short) -1));
            }
            return transactions.initProducerId(transactionalId, body.get(InitProducerIdRequest.TRANSACTION_TIMEOUT_MS),
                    body.get(InitProducerIdRequest.PRODUCER_ID), body.get(InitProducerIdRequest.PRODUCER_EPOCH))
                    .thenApply(answer -> response(answer.error(), answer.producerId(), answer.producerEpoch()));
        }
        // Kafka: an idempotent producer needs IDEMPOTENT_WRITE on the cluster, or WRITE on some topic.
        if (!session.allowedOnCluster(AclOperation.IDEMPOTENT_WRITE)
                && !session.allowedOnAny(AclOperation.WRITE, ResourceType.TOPIC)) {
            return CompletableFuture.completedFuture(response(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1, (short) -1));
        }
        return producerIds.next().thenApply(id -> id < 0 ? response(ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, (short) -1)
                : response(ErrorCode.NONE, id, (short) 0));
    }

    private static Struct response(ErrorCode error, long producerId, short epoch) {
        boolean failed = error != ErrorCode.NONE;
        return new Struct(InitProducerIdResponse.SCHEMA)
                .set(InitProducerIdResponse.THROTTLE_TIME_MS, 0)
                .set(InitProducerIdResponse.ERROR_CODE, error.code())
                .set(InitProducerIdResponse.PRODUCER_ID, failed ? -1L : producerId)
                .set(InitProducerIdResponse.PRODUCER_EPOCH, failed ? (short) -1 : epoch);
    }
}
