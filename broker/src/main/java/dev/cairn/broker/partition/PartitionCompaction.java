package dev.cairn.broker.partition;

import dev.cairn.broker.log.CompactionConfig;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogCleaner;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.protocol.record.RecordCursor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * Log compaction of one partition. On every replica it applies {@link Command.Compact} (apply thread); on the
 * leader it decides when a pass is due (any thread), as Kafka's cleaner does: when the dirty share of the cleanable
 * segments reaches {@code min.cleanable.dirty.ratio}, when a dirty segment is older than {@code max.compaction.lag.ms},
 * or (Cairn's addition) when a kept tombstone has outlived {@code delete.retention.ms} or a kept transaction marker's
 * delete horizon has passed. The cleanable segments are the inactive ones below the last stable offset (as Kafka's
 * {@code LogCleanerManager.cleanableOffsets}: records of open transactions are never cleaned), up to the first whose
 * newest record is younger than {@code min.compaction.lag.ms}.
 *
 * <p>A pass reads the partition's aborted transactions (their records go) and drops from the transaction index those
 * it emptied, on every replica at the same log position.
 *
 * <p>Where the last pass ended ({@code cleanedUpTo}) is known to every replica that applied it and to nobody after a
 * restart: the first pass then maps every key again, which costs a read of the log and rewrites nothing.
 */
final class PartitionCompaction {
    private static final Result.Compacted NOTHING = new Result.Compacted(0, -1, 0, 0, 0, false);
    private final Log log;
    private final TransactionIndex transactions;
    private final TransactionVerifications verifications;
    private final LogCleaner cleaner = new LogCleaner(LogCleaner.KEYS_MAX_DEFAULT,
            RecordCursor.DEFAULT_DECOMPRESSED_BYTES_MAX);
    private volatile long cleanedUpTo = -1;
    private volatile long oldestTombstoneKeptMs = -1;
    private volatile long earliestMarkerHorizonMs = -1;
    private final LongAdder passes = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder recordsRemoved = new LongAdder();

    PartitionCompaction(Log log, TransactionIndex transactions, TransactionVerifications verifications) {
        this.log = log;
        this.transactions = transactions;
        this.verifications = verifications;
    }

    /** Cumulative figures of the passes this replica ran, for metrics. */
    CompactionStats stats() {
        return new CompactionStats(passes.sum(), bytesRead.sum(), bytesWritten.sum(), recordsRemoved.sum());
    }

    /** Applies a replicated pass; a topic that is not compacted (any more) is left as it is. Apply thread. */
    Result.Compacted apply(Command.Compact compact, CompactionConfig config, long highWatermark) {
        if (!config.compacted()) {
            return NOTHING;
        }
        // Below the last stable offset only (at most the high watermark), as of this entry on every replica.
        long upTo = Math.min(compact.upToOffset(), transactions.lastStableOffset(highWatermark));
        LogCleaner.Outcome outcome = cleaner.clean(log, compact.dirtyFromOffset(), upTo, compact.nowMs(),
                config.deleteRetentionMs(), transactions::beginningWithin);
        if (outcome.segmentsCleaned() > 0) {
            cleanedUpTo = outcome.cleanedUpTo();
            oldestTombstoneKeptMs = outcome.oldestTombstoneKeptMs();
        }
        if (outcome.transactionsCleanedUpTo() >= 0) {
            earliestMarkerHorizonMs = outcome.earliestMarkerHorizonMs();
            verifications.onAbortedDropped(transactions.onAbortedCleaned(outcome.transactionsCleanedUpTo()));
        }
        passes.increment();
        bytesRead.add(outcome.bytesBefore());
        bytesWritten.add(outcome.bytesAfter());
        recordsRemoved.add(outcome.recordsRemoved());
        return new Result.Compacted(outcome.segmentsCleaned(), outcome.cleanedUpTo(), outcome.bytesBefore(),
                outcome.bytesAfter(), outcome.recordsRemoved(), outcome.keyMapFull());
    }

    /** The pass the leader should submit now, if one is due. Any thread. */
    Optional<Command.Compact> due(long nowMs, CompactionConfig config, long highWatermark) {
        if (!config.compacted()) {
            return Optional.empty();
        }
        List<SegmentExtent> segments = log.segmentExtents();
        if (segments.size() < 2) {
            return Optional.empty();
        }
        long dirtyFrom = Math.max(0, cleanedUpTo);
        long upTo = segments.get(segments.size() - 1).baseOffset();
        long lastStableOffset = transactions.lastStableOffset(highWatermark);
        long total = 0;
        long dirty = 0;
        long oldestDirtyMs = Long.MAX_VALUE;
        for (int i = 0; i < segments.size() - 1; i++) {
            SegmentExtent segment = segments.get(i);
            long newestMs = log.segmentMaxTimestamp(segment.baseOffset());
            boolean young = config.minCompactionLagMs() > 0 && newestMs > nowMs - config.minCompactionLagMs();
            if (young || segments.get(i + 1).baseOffset() > lastStableOffset) {
                upTo = segment.baseOffset();
                break;
            }
            total += segment.sizeBytes();
            if (segments.get(i + 1).baseOffset() > dirtyFrom) {
                dirty += segment.sizeBytes();
                oldestDirtyMs = Math.min(oldestDirtyMs, newestMs);
            }
        }
        if (total == 0) {
            return Optional.empty();
        }
        boolean ratio = dirty > 0 && dirty >= config.minCleanableDirtyRatio() * total;
        boolean lag = dirty > 0 && config.maxCompactionLagMs() != CompactionConfig.MAX_COMPACTION_LAG_MS_DEFAULT
                && oldestDirtyMs <= nowMs - config.maxCompactionLagMs();
        long tombstoneMs = oldestTombstoneKeptMs;
        long horizonMs = earliestMarkerHorizonMs;
        boolean tombstones = (tombstoneMs >= 0 && tombstoneMs <= nowMs - config.deleteRetentionMs())
                || (horizonMs >= 0 && horizonMs < nowMs);
        if (!ratio && !lag && !tombstones) {
            return Optional.empty();
        }
        return Optional.of(new Command.Compact(tombstones && dirty == 0 ? upTo : dirtyFrom, upTo, nowMs));
    }
}
