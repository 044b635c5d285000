package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.TransactionIndex.Aborted;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TransactionIndexTest {
    private final TransactionIndex index = new TransactionIndex();

    private static AppendAt at(long baseOffset, int records, long producerId, TxnRole txn) {
        return new AppendAt(baseOffset, 0L, 100, 0, records - 1, producerId, (short) 0, txn.isMarker() ? -1 : 0,
                txn.isMarker() ? -1 : records - 1, 0L, txn);
    }

    @Test
    void theLastStableOffsetStopsAtTheOldestOpenTransaction() {
        index.onCommitted(at(0, 2, -1, TxnRole.NONE));
        assertEquals(2, index.lastStableOffset(2), "no transaction: the high watermark");
        index.onCommitted(at(2, 3, 7, TxnRole.DATA));
        index.onCommitted(at(5, 1, 8, TxnRole.DATA));
        index.onCommitted(at(6, 2, 7, TxnRole.DATA));
        assertEquals(2, index.lastStableOffset(8));
        assertEquals(Map.of(7L, 2L, 8L, 5L), index.openTransactions());

        index.onCommitted(at(8, 1, 7, TxnRole.COMMIT));
        assertEquals(5, index.lastStableOffset(9), "producer 8's transaction is still open");
        index.onCommitted(at(9, 1, 8, TxnRole.COMMIT));
        assertEquals(10, index.lastStableOffset(10));
        assertEquals(List.of(), index.abortedWithin(0, 10), "committed transactions are not aborted ones");
    }

    @Test
    void anAbortedTransactionIsNamedToFetchesThatOverlapIt() {
        index.onCommitted(at(0, 3, 7, TxnRole.DATA));
        index.onCommitted(at(3, 2, -1, TxnRole.NONE));
        index.onCommitted(at(5, 1, 7, TxnRole.ABORT));
        index.onCommitted(at(6, 1, 9, TxnRole.DATA));
        index.onCommitted(at(7, 1, 9, TxnRole.ABORT));

        Aborted first = new Aborted(7, 0, 5);
        Aborted second = new Aborted(9, 6, 7);
        assertEquals(List.of(first, second), index.abortedWithin(0, 8));
        assertEquals(List.of(first), index.abortedWithin(4, 6), "the second began at 6, after the fetched range");
        assertEquals(List.of(second), index.abortedWithin(6, 8), "the first ended before the fetch offset");
        assertEquals(8, index.lastStableOffset(8));
    }

    /** Compaction reads them by first offset, segment by segment, and drops those whose records it removed. */
    @Test
    void compactionReadsThemByFirstOffsetAndDropsThoseItEmptied() {
        index.onCommitted(at(0, 3, 7, TxnRole.DATA));
        index.onCommitted(at(3, 1, 9, TxnRole.DATA));
        index.onCommitted(at(4, 1, 9, TxnRole.ABORT));
        index.onCommitted(at(5, 1, 7, TxnRole.ABORT));
        Aborted first = new Aborted(7, 0, 5);
        Aborted second = new Aborted(9, 3, 4);
        assertEquals(List.of(first, second), index.beginningWithin(Long.MIN_VALUE, 6, 0));
        assertEquals(List.of(first), index.beginningWithin(Long.MIN_VALUE, 3, 3), "began before, ends after 3");
        assertEquals(List.of(second), index.beginningWithin(3, 6, 3));
        assertEquals(List.of(first), index.beginningWithin(0, 6, 5), "the second ended before 5");

        assertEquals(1, index.onAbortedCleaned(5), "the pass settled every marker below 5");
        assertEquals(List.of(first), index.abortedWithin(0, 6));
        assertEquals(List.of(first), index.beginningWithin(Long.MIN_VALUE, 6, 0));
        assertEquals(0, index.onAbortedCleaned(5));
        assertEquals(1, index.onAbortedCleaned(6));
        assertEquals(0, index.abortedCount());
    }

    /**
     * A read_committed read whose aborted transactions were dropped while it read (by a compaction pass or the log
     * start moving) reads again, so that its batches and aborted transactions agree; one that keeps racing returns
     * nothing rather than something inconsistent.
     */
    @Test
    void aReadCommittedReadRacingADropReadsAgain() {
        index.onCommitted(at(0, 2, 7, TxnRole.DATA));
        index.onCommitted(at(2, 1, 7, TxnRole.ABORT));
        AtomicInteger reads = new AtomicInteger();
        TransactionIndex.CommittedRead read = index.readCommitted(0, () -> {
            if (reads.incrementAndGet() == 1) {
                index.onAbortedCleaned(3);
            }
            return LogSlice.empty(0);
        });
        assertEquals(2, reads.get());
        assertEquals(List.of(), read.aborted());

        index.onCommitted(at(3, 2, 8, TxnRole.DATA));
        index.onCommitted(at(5, 1, 8, TxnRole.ABORT));
        reads.set(0);
        TransactionIndex.CommittedRead racing = index.readCommitted(3, () -> {
            reads.incrementAndGet();
            index.onLogStartMoved(0);
            index.clear();
            return LogSlice.empty(3);
        });
        assertEquals(3, reads.get(), "at most three attempts");
        assertEquals(0, racing.slice().sizeBytes());
    }

    @Test
    void aMarkerWithoutAnOpenTransactionChangesNothing() {
        index.onCommitted(at(0, 1, 7, TxnRole.ABORT));
        assertEquals(List.of(), index.abortedWithin(0, 1));
        assertEquals(1, index.lastStableOffset(1));
    }

    @Test
    void abortedTransactionsLeaveWithTheLogStartButOpenOnesStay() {
        index.onCommitted(at(0, 2, 7, TxnRole.DATA));
        index.onCommitted(at(2, 1, 7, TxnRole.ABORT));
        index.onCommitted(at(3, 1, 8, TxnRole.DATA));
        index.onLogStartMoved(3);
        assertEquals(List.of(), index.abortedWithin(0, 4));
        index.onLogStartMoved(4);
        assertEquals(3, index.lastStableOffset(4), "the open transaction's marker is still to come");
    }

    /**
     * Dropping aborted transactions below the log start changes no read_committed answer from the log start on: a
     * fetch names those whose marker is at or after its offset (Kafka drops a segment's .txnindex with the segment).
     */
    @Test
    void readCommittedAnswersFromTheLogStartOnAreUnchanged() {
        index.onCommitted(at(0, 3, 7, TxnRole.DATA));
        index.onCommitted(at(3, 1, 8, TxnRole.DATA));
        index.onCommitted(at(4, 1, 7, TxnRole.ABORT));
        index.onCommitted(at(5, 1, 9, TxnRole.DATA));
        index.onCommitted(at(6, 1, 8, TxnRole.ABORT));
        index.onCommitted(at(7, 1, 9, TxnRole.ABORT));
        TransactionIndex before = new TransactionIndex();
        before.restore(index.encode());
        int dropped = 0;
        for (long logStart = 0; logStart <= 8; logStart++) {
            dropped += index.onLogStartMoved(logStart);
            assertEquals(3 - dropped, index.abortedCount(), "the count dropped is the leader's room back");
            for (long from = logStart; from <= 8; from++) {
                for (long upTo = from; upTo <= 8; upTo++) {
                    assertEquals(before.abortedWithin(from, upTo), index.abortedWithin(from, upTo),
                            "log start " + logStart + ", fetch [" + from + ", " + upTo + ")");
                }
            }
            assertEquals(before.aborted().tailMap(logStart, true), index.aborted(),
                    "exactly those whose marker is below the log start are gone");
        }
        assertEquals(0, index.abortedCount());
    }

    /** A snapshot restored into a log that starts later (retention ran after it was taken) holds none below it. */
    @Test
    void aRestoredIndexDropsAbortedTransactionsBelowTheLogStart() {
        index.onCommitted(at(0, 2, 7, TxnRole.DATA));
        index.onCommitted(at(2, 1, 7, TxnRole.ABORT));
        index.onCommitted(at(3, 1, 8, TxnRole.DATA));
        index.onCommitted(at(4, 1, 8, TxnRole.ABORT));
        assertEquals(2, index.abortedCount());
        TransactionIndex restored = new TransactionIndex();

        restored.restore(index.encode(), 3);

        assertEquals(List.of(new Aborted(8, 3, 4)), restored.abortedWithin(0, 5));
        assertEquals(1, restored.abortedCount());
        restored.restore(index.encode());
        assertEquals(2, restored.abortedCount(), "without a log start, all of them");
    }

    @Test
    void anEncodedIndexRestoresTheSameAnswers() {
        index.onCommitted(at(0, 2, 7, TxnRole.DATA));
        index.onCommitted(at(2, 1, 7, TxnRole.ABORT));
        index.onCommitted(at(3, 1, 8, TxnRole.DATA));
        TransactionIndex restored = new TransactionIndex();
        restored.onCommitted(at(0, 1, 99, TxnRole.DATA));

        restored.restore(index.encode());

        assertEquals(index.openTransactions(), restored.openTransactions());
        assertEquals(index.abortedWithin(0, 4), restored.abortedWithin(0, 4));
        assertEquals(3, restored.lastStableOffset(4));
        restored.onCommitted(at(4, 1, 8, TxnRole.COMMIT));
        assertEquals(5, restored.lastStableOffset(5));
    }

    @Test
    void aCorruptEncodingIsRefused() {
        byte[] encoded = index.encode();
        encoded[7] = 0x7f;   // the open count's low byte: far more entries than the bytes hold
        assertThrows(RuntimeException.class, () -> new TransactionIndex().restore(encoded));
    }
}
