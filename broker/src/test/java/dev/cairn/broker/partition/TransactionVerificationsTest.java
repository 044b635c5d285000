package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.AppendRefused;
import dev.cairn.protocol.ErrorCode;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * KIP-890 at the partition leader: a transactional batch that opens a transaction is placed only when it was
 * verified with its coordinator and no marker of its producer was placed since; a zombie's late batch is refused.
 */
class TransactionVerificationsTest {
    private static final long PRODUCER = 42;
    private final TransactionVerifications verifications = new TransactionVerifications();
    private final AppendPlanner planner = new AppendPlanner();

    private Command plan(int records, int baseSequence) {
        return planner.plan(new Command.Append(PartitionTestBatches.transactional(records, PRODUCER, (short) 0,
                baseSequence), 5_000L));
    }

    private Command marker() {
        return planner.plan(new Command.TxnMarker(PRODUCER, (short) 0, false, 0, 5_000L));
    }

    @Test
    void aBatchThatOpensATransactionNeedsItsVerification() {
        planner.reset(1, 0, new ProducerStateTable(), Set.of(), 0, verifications);
        AppendRefused unverified = assertInstanceOf(AppendRefused.class, plan(2, 0));
        assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, unverified.error(), "retriable: verified anew when retried");

        verifications.register(PRODUCER, (short) 0, 0);
        assertInstanceOf(AppendAt.class, plan(2, 0));
        assertTrue(verifications.isOpen(PRODUCER));
        assertInstanceOf(AppendAt.class, plan(1, 2), "the open transaction's next batches need nothing");

        assertInstanceOf(AppendAt.class, marker());
        assertFalse(verifications.isOpen(PRODUCER));
        assertInstanceOf(AppendRefused.class, plan(1, 3), "the next transaction is verified again");
    }

    /** The KIP-890 case: verified, then the transaction is aborted before the batch is placed; it must not open one. */
    @Test
    void aMarkerPlacedWhileTheBatchWasVerifiedCancelsIt() {
        planner.reset(1, 0, new ProducerStateTable(), Set.of(), 0, verifications);
        verifications.register(PRODUCER, (short) 0, 0);
        assertInstanceOf(AppendAt.class, marker());
        assertInstanceOf(AppendRefused.class, plan(2, 0));
        assertFalse(verifications.isOpen(PRODUCER));
    }

    /** A registration is for one batch: a zombie's other batch cannot ride on the next transaction's verification. */
    @Test
    void aRegistrationAdmitsOnlyItsOwnBatch() {
        planner.reset(1, 0, new ProducerStateTable(), Set.of(), 0, verifications);
        verifications.register(PRODUCER, (short) 0, 5);
        assertInstanceOf(AppendRefused.class, plan(2, 0), "sequence 0 was not the batch verified");
    }

    @Test
    void aRebuiltPlannerKnowsTheOpenTransactionsAndForgetsRegistrations() {
        verifications.register(PRODUCER, (short) 0, 0);
        planner.reset(2, 0, new ProducerStateTable(), Set.of(), 0, verifications);
        assertInstanceOf(AppendRefused.class, plan(2, 0), "registrations from before the rebuild are not trusted");
        planner.reset(3, 0, new ProducerStateTable(), Set.of(PRODUCER), 0, verifications);
        assertTrue(verifications.isOpen(PRODUCER));
        assertInstanceOf(AppendAt.class, plan(2, 0));
    }

    /**
     * A view rebuilt within its term (a placement was refused or cancelled) keeps the registrations: the leader placed
     * every marker of the term itself. Dropping them refused every batch whose verification was out at each rebuild.
     */
    @Test
    void aRebuildWithinTheTermKeepsRegistrations() {
        registerThenRebuildWithinTerm(4);
        assertInstanceOf(AppendAt.class, plan(2, 0), "verified in this term, no marker since");
    }

    /** A marker of the term that is not applied yet comes back by replay on such a rebuild, and still cancels. */
    @Test
    void aReplayedMarkerCancelsOnARebuildWithinTheTerm() {
        registerThenRebuildWithinTerm(4);
        planner.replay(new AppendAt(0, 5_000L, 100, 0, 0, PRODUCER, (short) 0, -1, -1, 5_000L, TxnRole.ABORT));
        assertInstanceOf(AppendRefused.class, plan(2, 0));
    }

    /** Registers the producer's first batch in {@code term}, then has the view invalidated and rebuilt in it. */
    private void registerThenRebuildWithinTerm(long term) {
        planner.reset(term, 0, new ProducerStateTable(), Set.of(), 0, verifications);
        verifications.register(PRODUCER, (short) 0, 0);
        planner.invalidate();
        planner.reset(term, 0, new ProducerStateTable(), Set.of(), 0, verifications);
    }

    @Test
    void openTransactionsAreBounded() {
        for (long producer = 0; producer < TransactionVerifications.OPEN_MAX; producer++) {
            verifications.onPlaced(new AppendAt(producer, 0, 100, 0, 0, 1_000 + producer, (short) 0, 0, 0, 0,
                    TxnRole.DATA));
        }
        verifications.register(PRODUCER, (short) 0, 0);
        assertFalse(verifications.admit(PRODUCER, (short) 0, 0), "no new transaction past the bound");
        assertTrue(verifications.admit(1_000, (short) 0, 1), "an open one goes on");
    }

    /**
     * The partition's aborted transactions are bounded (TransactionIndex.ABORTED_MAX, 3 here): no transaction opens
     * while those held plus those open, each of which may still abort, reach it. The refusal is final for the
     * transaction (POLICY_VIOLATION: the producer aborts it, and nothing is open here to record). Room comes back as
     * the log start passes aborted transactions, at once, and at a rebuild from the applied count.
     */
    @Test
    void noTransactionOpensThatCouldTakeTheAbortedOnesPastTheirBound() {
        TransactionVerifications bounded = new TransactionVerifications(3);
        planner.reset(1, 0, new ProducerStateTable(), Set.of(), 1, bounded);
        assertInstanceOf(AppendAt.class, open(bounded, 1));
        assertInstanceOf(AppendAt.class, open(bounded, 2));
        AppendRefused full = assertInstanceOf(AppendRefused.class, open(bounded, 3));
        assertEquals(ErrorCode.POLICY_VIOLATION, full.error());
        assertTrue(planner.isCurrent(1), "the view stays: other appends go on");
        bounded.onAbortedDropped(1);
        assertInstanceOf(AppendAt.class, open(bounded, 3), "the log start passed the aborted one");
        AppendRefused fullAgain = assertInstanceOf(AppendRefused.class, open(bounded, 4));
        assertEquals(ErrorCode.POLICY_VIOLATION, fullAgain.error());

        planner.reset(1, 0, new ProducerStateTable(), Set.of(1L, 2L), 1, bounded);
        assertInstanceOf(AppendAt.class, planner.plan(new Command.TxnMarker(1, (short) 0, false, 0, 5_000L)));
        assertInstanceOf(AppendRefused.class, open(bounded, 5), "the abort holds its place among the aborted");
        assertInstanceOf(AppendAt.class, planner.plan(new Command.TxnMarker(2, (short) 0, true, 0, 5_000L)));
        assertInstanceOf(AppendAt.class, open(bounded, 5), "a commit gives its place back");

        planner.reset(2, 0, new ProducerStateTable(), Set.of(), 3, bounded);
        assertInstanceOf(AppendRefused.class, open(bounded, 4));
        planner.reset(2, 0, new ProducerStateTable(), Set.of(), 0, bounded);
        assertInstanceOf(AppendAt.class, open(bounded, 4), "the log start passed the aborted ones");
    }

    /** Registers and plans the first batch of {@code producer}'s transaction. */
    private Command open(TransactionVerifications bounded, long producer) {
        bounded.register(producer, (short) 0, 0);
        return planner.plan(new Command.Append(PartitionTestBatches.transactional(1, producer, (short) 0, 0),
                5_000L));
    }

    @Test
    void registrationsAreBoundedTheOldestGoingFirst() {
        for (int i = 0; i <= TransactionVerifications.PENDING_MAX; i++) {
            verifications.register(PRODUCER, (short) 0, i);
        }
        assertFalse(verifications.admit(PRODUCER, (short) 0, 0), "the oldest registration was dropped");
        assertTrue(verifications.admit(PRODUCER, (short) 0, TransactionVerifications.PENDING_MAX));
        assertFalse(verifications.admit(PRODUCER, (short) 0, TransactionVerifications.PENDING_MAX), "used up");
    }
}
