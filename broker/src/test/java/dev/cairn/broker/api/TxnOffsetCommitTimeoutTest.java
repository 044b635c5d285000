package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** TxnOffsetCommit answers within one bound for the whole request, below franz-go's 10 s wait. */
class TxnOffsetCommitTimeoutTest {
    private static final long FRANZ_GO_WAIT_MS = 10_000;

    @Test
    void theStepsFitInTheBoundAndTheBoundInTheClientsWait() {
        assertTrue(TxnOffsetCommitHandler.REQUEST_TIMEOUT_MS < FRANZ_GO_WAIT_MS);
        assertTrue(TransactionCoordinator.REQUEST_SUBMIT_TIMEOUT_MS < TxnOffsetCommitHandler.REQUEST_TIMEOUT_MS,
                "the coordinator step leaves time for the offsets");
    }

    @Test
    void theOffsetsGetWhatTheCoordinatorStepLeft() {
        long deadline = TimeUnit.MILLISECONDS.toNanos(TxnOffsetCommitHandler.REQUEST_TIMEOUT_MS);
        assertEquals(OffsetCommitHandler.OFFSET_COMMIT_TIMEOUT_MS,
                TxnOffsetCommitHandler.commitTimeoutMs(deadline, 0), "a quick coordinator step: the usual bound");
        assertEquals(TxnOffsetCommitHandler.REQUEST_TIMEOUT_MS - TransactionCoordinator.REQUEST_SUBMIT_TIMEOUT_MS,
                TxnOffsetCommitHandler.commitTimeoutMs(deadline,
                        TimeUnit.MILLISECONDS.toNanos(TransactionCoordinator.REQUEST_SUBMIT_TIMEOUT_MS)),
                "a coordinator step that took its whole bound");
        assertEquals(1, TxnOffsetCommitHandler.commitTimeoutMs(deadline, deadline + 5), "past the deadline: 1 ms");
    }
}
