package dev.cairn.broker.log;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.log.CleanableSegments.InactiveSegment;
import dev.cairn.protocol.record.BatchFilter;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Compacts a log's inactive segments, Kafka's way: the latest record of each key stays, older records of the key
 * go, records without a key go, and a tombstone (a record with a null value) goes once it is older than the delete
 * retention. Offsets never change: each batch keeps its place (see {@link BatchFilter}), a batch that keeps nothing
 * becomes an empty batch over the same offsets, and each segment keeps its base offset and end.
 *
 * <p>Transactions, as Kafka's cleaner treats them ({@code Cleaner} / {@code CleanedTransactionMetadata}): records of
 * aborted transactions (named by {@link AbortedTransactions}) never enter the key map, so they never win over a
 * committed value of their key, and every pass removes them; a transaction marker goes once its transaction has no
 * record left and its delete horizon has passed (see {@link CleanerPass}). The caller bounds {@code upToOffset} by
 * the last stable offset: records of transactions still open are never cleaned. Aborted records and markers are
 * handled in every segment ending by {@code upToOffset}, also beyond those a full key map leaves uncompacted, so
 * which markers a pass settles does not depend on how many keys fitted.
 *
 * <p>Deterministic: the outcome depends only on the log's bytes below {@code upToOffset}, the aborted transactions,
 * {@code nowMs} and the settings, so replicas that run the same pass at the same log position (a replicated command)
 * hold identical segments afterwards. It is also a fixed point: running a pass again, or an earlier pass after a
 * later one (a Raft replay), changes nothing, and an unchanged segment is not rewritten. (One exception, documented
 * on {@link CleanerPass}: a commit marker a replayed pass finds emptied by a later pass that did not reach it.)
 *
 * <p>Bounded: the key map holds at most {@code keysMax} keys (24 bytes each, twice over, see
 * {@link KeyOffsetMap}); when the keys of the segments below {@code upToOffset} do not fit, the pass compacts only the
 * segments whose keys did. Segments are read and written {@link #IO_BYTES} at a time. Runs on the log's writer
 * thread.
 */
public final class LogCleaner {
    /** Default key map bound: 512 Ki keys, at most 24 MiB of map (it grows as keys arrive). */
    public static final int KEYS_MAX_DEFAULT = 1 << 19;
    /** Bytes read from a segment, and buffered for the compacted copy, at a time. */
    static final int IO_BYTES = 1 << 20;

    private final int keysMax;
    private final int decompressedBytesMax;
    private final RecordCursor cursor = new RecordCursor();
    private final RecordBatch batch = new RecordBatch();

    /**
     * @param decompressedBytesMax how far one batch's records may inflate (the produce validation limit)
     */
    public LogCleaner(int keysMax, int decompressedBytesMax) {
        this.keysMax = keysMax;
        this.decompressedBytesMax = decompressedBytesMax;
    }

    /**
     * What a pass did. {@code segmentsCleaned} and {@code cleanedUpTo} (-1: none) count the segments compacted by key;
     * {@code transactionsCleanedUpTo} (-1: none) is the end of the segments whose aborted records and markers it
     * settled: every aborted transaction whose marker lies below it has no record left, and needs no index entry
     * (Kafka's cleaner rewrites the segment's transaction index without it). {@code recordsRemoved} includes the
     * aborted ones; {@code oldestTombstoneKeptMs} and {@code earliestMarkerHorizonMs} are -1 when none was kept.
     */
    public record Outcome(int segmentsCleaned, int segmentsRewritten, long bytesBefore, long bytesAfter,
            long recordsRemoved, long tombstonesRemoved, long cleanedUpTo, boolean keyMapFull,
            long oldestTombstoneKeptMs, long abortedRecordsRemoved, long markersRemoved, long transactionsCleanedUpTo,
            long earliestMarkerHorizonMs) {
    }

    /** As {@link #clean(Log, long, long, long, long, AbortedTransactions)} for a log without aborted transactions. */
    public Outcome clean(Log log, long dirtyFromOffset, long upToOffset, long nowMs, long deleteRetentionMs) {
        return clean(log, dirtyFromOffset, upToOffset, nowMs, deleteRetentionMs, AbortedTransactions.NONE);
    }

    /**
     * Compacts the inactive segments of {@code log} that end at or below {@code upToOffset}. The key map is built
     * from the dirty records, those at or above {@code dirtyFromOffset} (the end of the previous pass), leaving out
     * those of aborted transactions; records below it were compacted against each other already, so one whose key
     * has no newer record stays. A key map that fills up ends the compaction at the last segment whose dirty keys all
     * fit; the segments after it up to {@code upToOffset} still lose their aborted records and settle their markers.
     *
     * @param upToOffset at most the last stable offset
     * @param nowMs the clock the tombstones' age and the markers' delete horizons are measured against (the
     *     leader's, carried by the command)
     * @param deleteRetentionMs {@code delete.retention.ms}: how long a tombstone, or a marker of an emptied
     *     transaction, stays
     * @param aborted the log's aborted transactions
     */
    public Outcome clean(Log log, long dirtyFromOffset, long upToOffset, long nowMs, long deleteRetentionMs,
            AbortedTransactions aborted) {
        List<InactiveSegment> candidates = log.cleanableSegments().inactiveSegmentsEndingBy(upToOffset);
        KeyOffsetMap map = new KeyOffsetMap(keysMax);
        CleanedTransactions mapped = new CleanedTransactions(aborted);
        int cleanable = 0;
        boolean full = false;
        for (InactiveSegment segment : candidates) {
            if (segment.endOffset() > dirtyFromOffset && !mapKeys(log, segment, dirtyFromOffset, map, mapped)) {
                full = true;
                break;
            }
            cleanable++;
        }
        CleanerPass pass = new CleanerPass(map, new CleanedTransactions(aborted), cursor, decompressedBytesMax, nowMs,
                deleteRetentionMs);
        long bytesBefore = 0;
        long bytesAfter = 0;
        int rewritten = 0;
        for (int i = 0; i < candidates.size(); i++) {
            InactiveSegment segment = candidates.get(i);
            pass.onSegment(segment, i < cleanable);
            bytesBefore += segment.sizeBytes();
            long after = rewrite(log, segment, pass);
            if (after >= 0) {
                rewritten++;
                bytesAfter += after;
            } else {
                bytesAfter += segment.sizeBytes();
            }
        }
        long cleanedUpTo = cleanable == 0 ? -1 : candidates.get(cleanable - 1).endOffset();
        long transactionsCleanedUpTo = candidates.isEmpty() ? -1 : candidates.get(candidates.size() - 1).endOffset();
        return new Outcome(cleanable, rewritten, bytesBefore, bytesAfter, pass.recordsRemoved, pass.tombstonesRemoved,
                cleanedUpTo, full, pass.oldestTombstoneKeptMs, pass.abortedRecordsRemoved, pass.markersRemoved,
                transactionsCleanedUpTo, pass.earliestMarkerHorizonMs);
    }

    /** Adds the keys of the segment's records from {@code fromOffset}; false when the map filled up. */
    private boolean mapKeys(Log log, InactiveSegment segment, long fromOffset, KeyOffsetMap map,
            CleanedTransactions transactions) {
        transactions.onSegment(segment.baseOffset(), segment.endOffset());
        try {
            return forEachBatch(log, segment, (batch, bytes) -> mapBatch(batch, fromOffset, map, transactions));
        } catch (IOException e) {
            throw new StorageException("compaction of segment " + segment.baseOffset() + " in " + log.directory()
                    + " failed", e);
        }
    }

    /**
     * Adds the keys of one batch's records from {@code fromOffset}, unless it is a control batch or belongs to an
     * aborted transaction; false when the map filled up.
     */
    private boolean mapBatch(RecordBatch batch, long fromOffset, KeyOffsetMap map, CleanedTransactions transactions) {
        if (batch.isControl()) {
            transactions.onControlBatch(batch);
            return true;
        }
        if (transactions.isAborted(batch) || batch.recordsCount() == 0) {
            return true;
        }
        cursor.reset(batch, decompressedBytesMax);
        while (cursor.next()) {
            ByteBuffer key = cursor.key();
            if (key != null && cursor.offset() >= fromOffset && !map.put(key, cursor.offset())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes the segment's compacted copy and puts it in place; returns its size, or -1 when nothing would change
     * (the copy is dropped and the segment stays as it is).
     */
    private long rewrite(Log log, InactiveSegment segment, CleanerPass pass) {
        FileIo io = log.cleanableSegments().fileIo();
        Path cleaned = SegmentDescriptor.cleanedFile(log.directory(), segment.baseOffset());
        boolean[] changed = {false};
        long[] written = {0};
        try {
            io.delete(cleaned);
            try (FileHandle out = io.open(cleaned)) {
                ByteBuffer buffer = ByteBuffer.allocate(IO_BYTES);
                forEachBatch(log, segment, (batch, original) -> {
                    ByteBuffer result = pass.filter(batch);
                    changed[0] |= !result.equals(original);
                    if (result.remaining() > buffer.remaining()) {
                        written[0] += drain(out, buffer, written[0]);
                    }
                    if (result.remaining() > buffer.capacity()) {
                        int bytes = result.remaining();
                        out.write(result, written[0]);
                        written[0] += bytes;
                    } else {
                        buffer.put(result);
                    }
                    return true;
                });
                written[0] += drain(out, buffer, written[0]);
                if (changed[0]) {
                    out.force();
                }
            }
            if (!changed[0]) {
                io.delete(cleaned);
                return -1;
            }
        } catch (IOException e) {
            throw new StorageException("compaction of segment " + segment.baseOffset() + " in " + log.directory()
                    + " failed", e);
        }
        log.cleanableSegments().replaceWithCleaned(segment.baseOffset(), cleaned);
        return written[0];
    }

    /** Reads a segment's batches in order, {@link #IO_BYTES} at a time; stops when the visitor returns false. */
    private boolean forEachBatch(Log log, InactiveSegment segment, BatchVisitor visitor) throws IOException {
        long offset = segment.baseOffset();
        while (offset < segment.endOffset()) {
            ByteBuffer chunk = log.cleanableSegments().readSegment(segment.baseOffset(), offset, IO_BYTES);
            int position = chunk.position();
            while (position < chunk.limit()) {
                batch.wrap(chunk, position);
                int size = batch.sizeInBytes();
                ByteBuffer bytes = chunk.duplicate().limit(position + size).position(position);
                position += size;
                offset = batch.lastOffset() + 1;
                if (!visitor.visit(batch, bytes)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** One batch of a segment, and its bytes; returns whether to go on. */
    @FunctionalInterface
    private interface BatchVisitor {
        boolean visit(RecordBatch batch, ByteBuffer bytes) throws IOException;
    }

    /** Writes the buffered bytes at {@code position} and empties the buffer; returns how many it wrote. */
    private static long drain(FileHandle out, ByteBuffer buffer, long position) throws IOException {
        buffer.flip();
        int bytes = buffer.remaining();
        out.write(buffer, position);
        buffer.clear();
        return bytes;
    }
}
