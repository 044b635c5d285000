package dev.cairn.broker.api;

import dev.cairn.broker.partition.TransactionRecord;
import dev.cairn.broker.partition.TxnStatus;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListTransactionsRequest;
import dev.cairn.protocol.message.ListTransactionsResponse;
import dev.cairn.protocol.message.ListTransactionsResponse.TransactionState;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * ListTransactions (key 66), versions 0-1: the transactional ids this broker coordinates (clients ask every broker),
 * filtered by state, producer id and, from v1, by how long the transaction has been open; each only if the principal
 * may describe it. Unknown state names are returned as such, as Kafka does.
 */
public final class ListTransactionsHandler implements RequestHandler {
    private final TransactionCoordinator coordinator;
    private final LongSupplier clockMs;

    public ListTransactionsHandler(TransactionCoordinator coordinator, LongSupplier clockMs) {
        this.coordinator = coordinator;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        Set<TxnStatus> states = EnumSet.noneOf(TxnStatus.class);
        List<String> unknown = new ArrayList<>();
        for (String name : body.get(ListTransactionsRequest.STATE_FILTERS)) {
            TxnStatus status = statusNamed(name);
            if (status == null) {
                unknown.add(name);
            } else {
                states.add(status);
            }
        }
        Set<Long> producers = new HashSet<>(body.get(ListTransactionsRequest.PRODUCER_ID_FILTERS));
        long minDurationMs = body.get(ListTransactionsRequest.DURATION_FILTER);
        long nowMs = clockMs.getAsLong();
        List<Struct> listed = new ArrayList<>();
        for (TransactionRecord record : coordinator.coordinatedTransactions()) {
            boolean stateMatches = body.get(ListTransactionsRequest.STATE_FILTERS).isEmpty()
                    || states.contains(record.status());
            boolean producerMatches = producers.isEmpty() || producers.contains(record.producerId());
            boolean durationMatches = minDurationMs < 0
                    || record.status() == TxnStatus.ONGOING && nowMs - record.startMs() >= minDurationMs;
            if (stateMatches && producerMatches && durationMatches && context.session().allowed(
                    AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, record.transactionalId())) {
                listed.add(new Struct(TransactionState.SCHEMA)
                        .set(TransactionState.TRANSACTIONAL_ID, record.transactionalId())
                        .set(TransactionState.PRODUCER_ID, record.producerId())
                        .set(TransactionState.TRANSACTION_STATE, TransactionCoordinator.stateName(record.status())));
            }
        }
        return CompletableFuture.completedFuture(new Struct(ListTransactionsResponse.SCHEMA)
                .set(ListTransactionsResponse.THROTTLE_TIME_MS, 0)
                .set(ListTransactionsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(ListTransactionsResponse.UNKNOWN_STATE_FILTERS, unknown)
                .set(ListTransactionsResponse.TRANSACTION_STATES, listed));
    }

    private static TxnStatus statusNamed(String name) {
        for (TxnStatus status : TxnStatus.values()) {
            if (TransactionCoordinator.stateName(status).equals(name)) {
                return status;
            }
        }
        return null;
    }
}
