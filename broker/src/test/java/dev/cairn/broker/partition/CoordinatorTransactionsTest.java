package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cairn.broker.partition.Command.TxnAddPartitions;
import dev.cairn.broker.partition.Command.TxnComplete;
import dev.cairn.broker.partition.Command.TxnEnd;
import dev.cairn.broker.partition.Command.TxnInit;
import dev.cairn.protocol.ErrorCode;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The transaction coordinator's rules, as every replica of a {@code __transaction_state} partition applies them. */
class CoordinatorTransactionsTest {
    private static final String ID = "orders-app";
    private static final TxnPartition ORDERS_0 = new TxnPartition("orders", 0);
    private static final TxnPartition INPUT_1 = new TxnPartition("input", 1);
    private final CoordinatorTransactions coordinator = new CoordinatorTransactions();
    private long nowMs = 1_000;

    private Result.TxnAnswer apply(Command command) {
        Result result = coordinator.apply(command);
        assertInstanceOf(Result.TxnAnswer.class, result, "a coordinator command answers with its outcome");
        // Through the codec, as the Raft log and its replies carry them.
        assertEquals(command, CommandCodec.decodeCommand(CommandCodec.encode(command)));
        assertEquals(result, CommandCodec.decodeResult(CommandCodec.encode(result)));
        return (Result.TxnAnswer) result;
    }

    private Result.TxnAnswer init(long candidate) {
        return apply(new TxnInit(ID, 60_000, candidate, -1, (short) -1, nowMs += 10));
    }

    private Result.TxnAnswer add(long producer, short epoch, TxnPartition... partitions) {
        return apply(new TxnAddPartitions(ID, producer, epoch, List.of(partitions), false, nowMs += 10));
    }

    private Result.TxnAnswer end(long producer, short epoch, boolean commit) {
        return apply(new TxnEnd(ID, producer, epoch, commit, false, nowMs += 10));
    }

    @Test
    void aTransactionGoesFromEmptyThroughOngoingAndPrepareToComplete() {
        Result.TxnAnswer first = init(500);
        assertEquals(ErrorCode.NONE, first.error());
        assertEquals(500, first.producerId());
        assertEquals(0, first.producerEpoch());
        assertEquals(TxnStatus.EMPTY, coordinator.record(ID).status());

        assertEquals(ErrorCode.NONE, add(500, (short) 0, ORDERS_0).error());
        assertEquals(ErrorCode.NONE, apply(new TxnAddPartitions(ID, 500, (short) 0, List.of(INPUT_1), true, nowMs))
                .error());
        TransactionRecord ongoing = coordinator.record(ID);
        assertEquals(TxnStatus.ONGOING, ongoing.status());
        assertEquals(Set.of(ORDERS_0), ongoing.partitions());
        assertEquals(Set.of(INPUT_1), ongoing.offsetsOnlyPartitions());

        assertEquals(ErrorCode.NONE, end(500, (short) 0, true).error());
        assertEquals(TxnStatus.PREPARE_COMMIT, coordinator.record(ID).status());
        assertEquals(ErrorCode.NONE, end(500, (short) 0, true).error(), "a retried EndTxn");
        assertEquals(ErrorCode.INVALID_TXN_STATE, end(500, (short) 0, false).error(), "aborting a committing one");
        assertEquals(ErrorCode.CONCURRENT_TRANSACTIONS, add(500, (short) 0, ORDERS_0).error(),
                "the next transaction waits for the markers");

        apply(new TxnComplete(ID, 500, (short) 0, nowMs));
        assertEquals(TxnStatus.COMPLETE_COMMIT, coordinator.record(ID).status());
        assertEquals(Set.of(), coordinator.record(ID).partitions());
        assertEquals(ErrorCode.NONE, add(500, (short) 0, INPUT_1).error(), "the next transaction begins");
    }

    @Test
    void aNewSessionBumpsTheEpochAndFencesTheOldOne() {
        init(500);
        add(500, (short) 0, ORDERS_0);
        Result.TxnAnswer successor = init(501);
        assertEquals(ErrorCode.CONCURRENT_TRANSACTIONS, successor.error(), "the open transaction is aborted first");
        TransactionRecord aborting = coordinator.record(ID);
        assertEquals(TxnStatus.PREPARE_ABORT, aborting.status());
        assertEquals(1, aborting.producerEpoch(), "its markers carry the new epoch, fencing the old session");
        assertEquals(ErrorCode.PRODUCER_FENCED, end(500, (short) 0, true).error());

        apply(new TxnComplete(ID, 500, (short) 1, nowMs));
        Result.TxnAnswer retried = init(502);
        assertEquals(ErrorCode.NONE, retried.error());
        assertEquals(500, retried.producerId(), "the id keeps its producer id");
        assertEquals(2, retried.producerEpoch());
        assertEquals(ErrorCode.PRODUCER_FENCED, add(500, (short) 1, ORDERS_0).error());
        assertEquals(ErrorCode.INVALID_PRODUCER_ID_MAPPING, add(77, (short) 2, ORDERS_0).error());
    }

    @Test
    void anExpiredTransactionIsAbortedUnderANewEpochUnlessItMovedOn() {
        init(500);
        add(500, (short) 0, ORDERS_0);
        TransactionRecord ongoing = coordinator.record(ID);
        assertEquals(false, ongoing.expired(ongoing.startMs() + 60_000));
        assertEquals(true, ongoing.expired(ongoing.startMs() + 60_001));

        apply(new TxnEnd(ID, 500, (short) 0, false, true, nowMs += 60_001));
        assertEquals(TxnStatus.PREPARE_ABORT, coordinator.record(ID).status());
        assertEquals(1, coordinator.record(ID).producerEpoch());
        apply(new TxnEnd(ID, 500, (short) 0, false, true, nowMs += 10));
        assertEquals(1, coordinator.record(ID).producerEpoch(), "a second expiry of the same epoch does nothing");
    }

    /** The coordinator's timer reads only the ids with a transaction open or ending, however many are held. */
    @Test
    void onlyOpenAndEndingTransactionsAreActive() {
        init(500);
        assertEquals(List.of(), coordinator.records(true), "a new session has no transaction yet");
        add(500, (short) 0, ORDERS_0);
        assertEquals(List.of(TxnStatus.ONGOING), statuses(coordinator.records(true)));
        end(500, (short) 0, true);
        assertEquals(List.of(TxnStatus.PREPARE_COMMIT), statuses(coordinator.records(true)));
        apply(new TxnComplete(ID, 500, (short) 0, nowMs += 10));
        assertEquals(List.of(), coordinator.records(true));
        assertEquals(List.of(TxnStatus.COMPLETE_COMMIT), statuses(coordinator.records(false)));
    }

    private static List<TxnStatus> statuses(List<TransactionRecord> records) {
        return records.stream().map(TransactionRecord::status).toList();
    }

    /** KIP-890: the partition leader asks whether a partition is in the producer's ongoing transaction. */
    @Test
    void verificationAnswersWhetherThePartitionIsInTheOngoingTransaction() {
        init(500);
        Command.TxnVerify orders = new Command.TxnVerify(ID, 500, (short) 0, ORDERS_0);
        assertEquals(ErrorCode.INVALID_TXN_STATE, apply(orders).error(), "no transaction yet");
        add(500, (short) 0, ORDERS_0);
        assertEquals(ErrorCode.NONE, apply(orders).error());
        assertEquals(ErrorCode.INVALID_TXN_STATE, apply(new Command.TxnVerify(ID, 500, (short) 0, INPUT_1)).error(),
                "a partition the transaction did not add");
        assertEquals(ErrorCode.PRODUCER_FENCED, apply(new Command.TxnVerify(ID, 500, (short) 1, ORDERS_0)).error());
        assertEquals(ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                apply(new Command.TxnVerify(ID, 501, (short) 0, ORDERS_0)).error());
        end(500, (short) 0, false);
        assertEquals(ErrorCode.INVALID_TXN_STATE, apply(orders).error(), "the transaction is ending");
        assertEquals(TxnStatus.PREPARE_ABORT, coordinator.record(ID).status(), "verification changes nothing");
    }

    @Test
    void theStateSurvivesASnapshot() {
        init(500);
        add(500, (short) 0, ORDERS_0, INPUT_1);
        CoordinatorTransactions restored = new CoordinatorTransactions();
        restored.restore(coordinator.encode());
        assertEquals(coordinator.records(false), restored.records(false));
        assertEquals(coordinator.records(true), restored.records(true));
        restored.restore(null);
        assertEquals(List.of(), restored.records(false));
        assertEquals(List.of(), restored.records(true));
        assertNull(coordinator.apply(new Command.EnforceRetention(0)), "not a coordinator command");
    }

    @Test
    void theEpochWrapsToANewProducerIdAtItsEnd() {
        init(500);
        for (int i = 1; i <= CoordinatorTransactions.EPOCH_MAX; i++) {
            init(600);
        }
        assertEquals(CoordinatorTransactions.EPOCH_MAX, coordinator.record(ID).producerEpoch());
        Result.TxnAnswer wrapped = init(600);
        assertEquals(600, wrapped.producerId());
        assertEquals(0, wrapped.producerEpoch());
    }

    /**
     * Kafka's {@code transactional.id.expiration.ms}: an id is forgotten only when, as the leader's entry applies, it
     * holds no transaction (Empty, CompleteCommit, CompleteAbort) and was last updated at least the expiration before
     * the leader's stamped time. Anything else named in the entry stays as it is.
     */
    @Test
    void onlyIdleTransactionalIdsExpireAsTheEntryApplies() {
        long expirationMs = 604_800_000L;
        init(500);
        long emptySince = nowMs;
        TxnInit other = new TxnInit("other-app", 60_000, 600, -1, (short) -1, nowMs);
        apply(other);
        apply(new TxnAddPartitions("other-app", 600, (short) 0, List.of(ORDERS_0), false, nowMs));

        Result.TxnAnswer early = apply(new Command.TxnExpireIds(List.of(ID, "other-app", "unknown"), expirationMs,
                emptySince + expirationMs - 1));
        assertEquals(ErrorCode.NONE, early.error());
        assertEquals(TxnStatus.EMPTY, coordinator.record(ID).status(), "not idle for long enough yet");

        apply(new Command.TxnExpireIds(List.of(ID, "other-app", "unknown"), expirationMs, emptySince + expirationMs));
        assertNull(coordinator.record(ID), "idle for exactly the expiration: forgotten");
        assertEquals(TxnStatus.ONGOING, coordinator.record("other-app").status(), "an open transaction stays");
        assertEquals(List.of("other-app"), coordinator.records(true).stream().map(TransactionRecord::transactionalId)
                .toList());

        Result.TxnAnswer fresh = init(700);
        assertEquals(700, fresh.producerId(), "an expired id starts over with a new producer id");
        assertEquals(0, fresh.producerEpoch());
    }

    /** Ended transactions (CompleteCommit, CompleteAbort) expire too; a transaction being ended (Prepare*) does not. */
    @Test
    void endedTransactionsExpireButEndingOnesDoNot() {
        long expirationMs = 1_000;
        init(500);
        add(500, (short) 0, ORDERS_0);
        end(500, (short) 0, false);
        apply(new Command.TxnExpireIds(List.of(ID), expirationMs, nowMs + 10 * expirationMs));
        assertEquals(TxnStatus.PREPARE_ABORT, coordinator.record(ID).status(), "its markers are still to be written");

        apply(new TxnComplete(ID, 500, (short) 0, nowMs += 10));
        apply(new Command.TxnExpireIds(List.of(ID), expirationMs, nowMs + expirationMs - 1));
        assertEquals(TxnStatus.COMPLETE_ABORT, coordinator.record(ID).status());
        apply(new Command.TxnExpireIds(List.of(ID), expirationMs, nowMs + expirationMs));
        assertNull(coordinator.record(ID));
        CoordinatorTransactions restored = new CoordinatorTransactions();
        restored.restore(coordinator.encode());
        assertEquals(List.of(), restored.records(false), "gone from the snapshot as well");
    }
}
