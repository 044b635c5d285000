package dev.cairn.broker.partition;

import dev.cairn.broker.log.Log;
import dev.cairn.protocol.ErrorCode;

/**
 * Retention and DeleteRecords: the commands that move a partition's log start, and with it what the producer state,
 * the leader epochs and the aborted transactions remember (and the leader's count of those, which bounds them).
 * Neither deletes at or above the high watermark (placed batches lie there).
 */
final class LogStartMoves {
    private LogStartMoves() {
    }

    static Result enforceRetention(Log log, long nowMs, long highWatermark, ProducerStateTable producers,
            LeaderEpochs leaderEpochs, TransactionIndex transactions, TransactionVerifications verifications) {
        log.tick(nowMs);
        int deleted = log.deleteExpired(nowMs, highWatermark);
        return moved(log, deleted, producers, leaderEpochs, transactions, verifications);
    }

    /** {@code offset} {@link Command.DeleteRecords#HIGH_WATERMARK} means the high watermark as of this entry. */
    static Result deleteRecords(Log log, long offset, long highWatermark, ProducerStateTable producers,
            LeaderEpochs leaderEpochs, TransactionIndex transactions, TransactionVerifications verifications) {
        long target = offset == Command.DeleteRecords.HIGH_WATERMARK ? highWatermark : offset;
        if (target < 0 || target > highWatermark) {
            return new Result.Rejected(ErrorCode.OFFSET_OUT_OF_RANGE, "cannot delete records below " + target
                    + ": the log ends at " + highWatermark);
        }
        return moved(log, log.deleteRecordsBefore(target), producers, leaderEpochs, transactions, verifications);
    }

    private static Result moved(Log log, int segmentsDeleted, ProducerStateTable producers, LeaderEpochs epochs,
            TransactionIndex transactions, TransactionVerifications verifications) {
        producers.onLogTruncatedBelow(log.logStartOffset());
        epochs.onLogStartMoved(log.logStartOffset());
        verifications.onAbortedDropped(transactions.onLogStartMoved(log.logStartOffset()));
        return new Result.Retained(log.logStartOffset(), segmentsDeleted);
    }
}
