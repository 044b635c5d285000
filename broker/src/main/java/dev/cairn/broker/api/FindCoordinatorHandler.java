package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.FindCoordinatorRequest;
import dev.cairn.protocol.message.FindCoordinatorResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * FindCoordinator (key 10), versions 0-2 (one key per request): a group's coordinator is a broker chosen from
 * the group id alone, so every broker names the same one without coordination. A transactional id's coordinator is
 * the leader of its {@code __transaction_state} partition ({@link TransactionCoordinator}); while the topic is being
 * created or the partition has no leader, the answer is COORDINATOR_NOT_AVAILABLE, which clients retry.
 */
public final class FindCoordinatorHandler implements RequestHandler {
    /** Key types (Kafka's {@code CoordinatorType}); v0 requests carry no key type and mean a group. */
    static final byte KEY_TYPE_GROUP = 0;
    static final byte KEY_TYPE_TRANSACTION = 1;
    private static final int NO_NODE_ID = -1;
    private static final int NO_PORT = -1;

    private final MetadataService metadata;
    private final TransactionCoordinator transactions;

    public FindCoordinatorHandler(MetadataService metadata, TransactionCoordinator transactions) {
        this.metadata = metadata;
        this.transactions = transactions;
    }

    /**
     * The coordinator of {@code groupId} among {@code brokers}: the broker at index hash(group) mod n of the
     * sorted broker ids, as Kafka maps a group to a partition of {@code __consumer_offsets} by
     * {@code String.hashCode}, which the Java language fixes, so every broker agrees. Null when there are none.
     */
    public static BrokerInfo coordinatorFor(String groupId, SortedMap<Integer, BrokerInfo> brokers) {
        if (brokers.isEmpty()) {
            return null;
        }
        List<BrokerInfo> sorted = new ArrayList<>(brokers.values());
        return sorted.get(Math.floorMod(groupId.hashCode(), sorted.size()));
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        byte keyType = body.get(FindCoordinatorRequest.KEY_TYPE);
        if (keyType == KEY_TYPE_TRANSACTION) {
            return transactionCoordinator(context, body.get(FindCoordinatorRequest.KEY));
        }
        if (keyType != KEY_TYPE_GROUP) {
            return answer(ErrorCode.INVALID_REQUEST, "unknown coordinator key type " + keyType, null);
        }
        if (!context.session().allowedOnGroup(AclOperation.DESCRIBE, body.get(FindCoordinatorRequest.KEY))) {
            return answer(ErrorCode.GROUP_AUTHORIZATION_FAILED, "Group authorization failed.", null);
        }
        BrokerInfo coordinator = coordinatorFor(body.get(FindCoordinatorRequest.KEY), metadata.image().liveBrokers());
        if (coordinator == null) {
            // No broker has registered yet (start-up): retriable, the client asks again.
            return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no broker is registered yet", null);
        }
        if (coordinator.endpoint(context.session().listenerName()).isEmpty()) {
            return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the coordinator, broker " + coordinator.nodeId()
                    + ", has no listener named " + context.session().listenerName(), null);
        }
        return answer(ErrorCode.NONE, null, coordinator.endpoint(context.session().listenerName()).get(),
                coordinator.nodeId());
    }

    private CompletableFuture<Struct> transactionCoordinator(RequestContext context, String transactionalId) {
        if (!context.session().allowed(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
            return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "Transactional Id authorization failed.",
                    null);
        }
        int node = transactions.coordinatorNode(transactionalId);
        BrokerInfo coordinator = metadata.image().liveBrokers().get(node);
        if (coordinator == null || coordinator.endpoint(context.session().listenerName()).isEmpty()) {
            return answer(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the transaction coordinator of " + transactionalId
                    + " is not known yet", null);
        }
        return answer(ErrorCode.NONE, null, coordinator.endpoint(context.session().listenerName()).get(), node);
    }

    private static CompletableFuture<Struct> answer(ErrorCode error, String message, BrokerInfo.Endpoint endpoint) {
        return answer(error, message, endpoint, NO_NODE_ID);
    }

    /** The answer naming the coordinator's endpoint on the request's listener (none: no coordinator). */
    private static CompletableFuture<Struct> answer(ErrorCode error, String message, BrokerInfo.Endpoint endpoint,
            int nodeId) {
        return CompletableFuture.completedFuture(new Struct(FindCoordinatorResponse.SCHEMA)
                .set(FindCoordinatorResponse.THROTTLE_TIME_MS, 0)
                .set(FindCoordinatorResponse.ERROR_CODE, error.code())
                .set(FindCoordinatorResponse.ERROR_MESSAGE, message)
                .set(FindCoordinatorResponse.NODE_ID, endpoint == null ? NO_NODE_ID : nodeId)
                .set(FindCoordinatorResponse.HOST, endpoint == null ? "" : endpoint.host())
                .set(FindCoordinatorResponse.PORT, endpoint == null ? NO_PORT : endpoint.port()));
    }
}
