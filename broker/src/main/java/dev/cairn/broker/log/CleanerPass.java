package dev.cairn.broker.log;

import dev.cairn.broker.log.CleanableSegments.InactiveSegment;
import dev.cairn.protocol.record.BatchFilter;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordCursor;
import java.nio.ByteBuffer;

/**
 * One cleaner pass's decisions over the batches it rewrites, in offset order, and what it removed. As Kafka's cleaner
 * ({@code LogCleaner.cleanInto} and its record filter):
 * <ul>
 *   <li>records of aborted transactions go (all of them, whatever their keys);</li>
 *   <li>in the segments whose dirty keys were mapped, a record goes unless it is the latest of its key, and a
 *       tombstone goes once it is older than {@code delete.retention.ms} (Cairn measures that from the record's
 *       timestamp, as before);</li>
 *   <li>a transaction marker whose transaction has no record left gets a delete horizon (KIP-534: the base timestamp
 *       holds {@code nowMs + delete.retention.ms}, an attribute bit marks it) the first time a pass finds it so, and
 *       goes on a later pass whose {@code nowMs} lies past that horizon. It goes the way emptied batches go: it stays
 *       in place with no record, so offsets never change.</li>
 * </ul>
 * The horizon is compared strictly ({@code horizon < nowMs}, where Kafka removes at {@code horizon <= nowMs}) so
 * that running the same pass twice changes nothing even with {@code delete.retention.ms} 0.
 *
 * <p>Replays. A pass replayed after later ones (Raft replays the passes after a snapshot on a log those later passes
 * compacted already) must change nothing. Aborted records and abort markers are settled by the index and the segments
 * a pass reaches, never by which records are left, so a replay settles them as the original did: the first pass that
 * reaches an abort marker gives it its horizon, whatever later passes did. A commit marker, though, gets its horizon
 * from the first pass that reaches it and finds its transaction empty, and a replayed earlier pass finds it empty if
 * a later pass emptied it. That later pass reached the marker too (and gave it its horizon first) unless it compacted
 * a shorter stretch of the log than the earlier one: the leader's clock went back, {@code min.compaction.lag.ms} was
 * raised, or the replayed pass fits more dirty keys in its map than the original did. Then, and when a later pass's
 * clock lay more than {@code delete.retention.ms} behind an earlier one's, a replica that replays gives a commit
 * marker its horizon, or removes it, earlier than its peers. Consumers cannot tell (they skip commit markers); only
 * the bytes differ until the peers remove it too.
 */
final class CleanerPass implements BatchFilter.RecordPredicate {
    private final KeyOffsetMap map;
    private final CleanedTransactions transactions;
    private final RecordCursor cursor;
    private final int decompressedBytesMax;
    private final long nowMs;
    private final long deleteRetentionMs;
    private final long tombstoneHorizonMs;
    /** Whether this segment's dirty keys were mapped (else only aborted records and markers change). */
    private boolean compactRecords;
    private boolean abortedBatch;
    private int keptInBatch;
    long recordsRemoved;
    long tombstonesRemoved;
    long abortedRecordsRemoved;
    long markersRemoved;
    long oldestTombstoneKeptMs = -1;
    long earliestMarkerHorizonMs = -1;

    CleanerPass(KeyOffsetMap map, CleanedTransactions transactions, RecordCursor cursor, int decompressedBytesMax,
            long nowMs, long deleteRetentionMs) {
        this.map = map;
        this.transactions = transactions;
        this.cursor = cursor;
        this.decompressedBytesMax = decompressedBytesMax;
        this.nowMs = nowMs;
        this.deleteRetentionMs = deleteRetentionMs;
        this.tombstoneHorizonMs = nowMs - deleteRetentionMs;
    }

    /** The next segment to rewrite; {@code compactRecords}: whether its dirty keys were mapped. */
    void onSegment(InactiveSegment segment, boolean compactRecords) {
        this.compactRecords = compactRecords;
        transactions.onSegment(segment.baseOffset(), segment.endOffset());
    }

    /** The batch as this pass keeps it: itself (a slice, not copied) when nothing changes. */
    ByteBuffer filter(RecordBatch batch) {
        if (batch.isControl()) {
            return filterMarker(batch);
        }
        abortedBatch = transactions.isAborted(batch);
        keptInBatch = 0;
        ByteBuffer kept = BatchFilter.retain(batch, cursor, decompressedBytesMax, this);
        if (!abortedBatch) {
            transactions.onRecordsKept(batch, keptInBatch);
        }
        return kept;
    }

    @Override
    public boolean keep(RecordCursor record) {
        if (abortedBatch) {
            recordsRemoved++;
            abortedRecordsRemoved++;
            return false;
        }
        if (compactRecords && !keepLatest(record)) {
            return false;
        }
        keptInBatch++;
        return true;
    }

    /** Compaction proper: the latest record of each key stays, a tombstone until the delete retention has passed. */
    private boolean keepLatest(RecordCursor record) {
        ByteBuffer key = record.key();
        long latest = key == null ? -1 : map.latestOffset(key);
        if (key == null || (latest >= 0 && latest != record.offset())) {
            recordsRemoved++;
            return false;
        }
        if (record.valueSize() < 0) {
            long timestamp = record.timestamp();
            if (timestamp <= tombstoneHorizonMs) {
                recordsRemoved++;
                tombstonesRemoved++;
                return false;
            }
            oldestTombstoneKeptMs = oldestTombstoneKeptMs < 0 ? timestamp : Math.min(oldestTombstoneKeptMs, timestamp);
        }
        return true;
    }

    /** A control batch: kept, given its delete horizon, or removed (emptied in place). */
    private ByteBuffer filterMarker(RecordBatch batch) {
        boolean transactionEmpty = transactions.onControlBatch(batch);
        if (!transactionEmpty || batch.recordsCount() == 0) {
            return batch.slice();
        }
        if (!batch.hasDeleteHorizon()) {
            long horizonMs = nowMs + deleteRetentionMs;
            if (((nowMs ^ horizonMs) & (deleteRetentionMs ^ horizonMs)) < 0) {
                horizonMs = Long.MAX_VALUE;
            }
            noteHorizon(horizonMs);
            return BatchFilter.withDeleteHorizon(batch, cursor, decompressedBytesMax, horizonMs);
        }
        if (batch.deleteHorizonMs() < nowMs) {
            markersRemoved++;
            return BatchFilter.emptied(batch);
        }
        noteHorizon(batch.deleteHorizonMs());
        return batch.slice();
    }

    private void noteHorizon(long horizonMs) {
        earliestMarkerHorizonMs = earliestMarkerHorizonMs < 0 ? horizonMs
                : Math.min(earliestMarkerHorizonMs, horizonMs);
    }
}
