package dev.cairn.broker.log;

import static dev.cairn.broker.log.SegmentDescriptor.NO_TIMESTAMP;

import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The log of one partition: a directory of {@link Segment}s, the last of which (the active segment) takes
 * appends. See the package documentation for the flush guarantees and {@link Segment} for the file layout.
 *
 * <p><b>Threads.</b> Single writer: every mutating call ({@link #append}, {@link #roll}, {@link #flush},
 * {@link #truncateTo}, retention, {@link #close}) must come from one thread, the first one that mutates;
 * this is checked on every call and a violation raises {@link InvariantViolation}. A deliberate handover
 * (for example a new Ratis state machine updater thread) calls {@link #claimWriter()} after a happens-before
 * edge with the old writer. {@link #read} and the offset lookups may run on any thread: they see only what
 * is published through the volatile {@link #logEndOffset()}, never a half-written batch. Truncation and
 * retention are not fenced against readers: a reader racing them gets an {@link OffsetOutOfRangeException}
 * or a {@link StorageException}; in Cairn readers stop at the high watermark and only uncommitted suffixes
 * are ever truncated, so the race does not arise for committed data.
 *
 * <p><b>Failures.</b> I/O failures surface as {@link StorageException}. A failed append leaves the log as it
 * was (no partial batch, same log end offset) and, after a full disk, appends work again once space
 * returns. When the log cannot restore its own consistency (the cut-back after a failed write failed, or an
 * fsync failed) it goes offline: every later mutation throws until the log is reopened, which recovers it.
 *
 * <p><b>Parts.</b> This class holds the log's contract; the work is done by classes that share one
 * {@link LogState}: {@link LogLoader} opens and recovers the segments, {@link LogAppender}, {@link SegmentRoller}
 * and {@link LogFlusher} write at the end, {@link LogRetention} and {@link LogTruncation} cut the start and the end,
 * {@link LogReader} reads, and {@link CleanableSegments} is what compaction sees.
 *
 * <p>Everything here is derived state that could be rebuilt by replaying the Raft log from a snapshot.
 */
public final class Log implements Closeable {
    private final LogState state;
    private final LogRetention retention;
    private final LogTruncation truncation;
    private final LogReader reader;
    private final SegmentRoller roller;
    private final LogFlusher flusher;
    private final LogAppender appender;
    private final CleanableSegments cleanableSegments;

    private Log(FileIo io, Path directory, LogConfig config, RecoveryCheckpoint checkpoint) {
        this.state = new LogState(io, directory, config, checkpoint);
        this.retention = new LogRetention(state);
        this.truncation = new LogTruncation(state);
        this.reader = new LogReader(state);
        this.roller = new SegmentRoller(state);
        this.flusher = new LogFlusher(state);
        this.appender = new LogAppender(state, roller, flusher);
        this.cleanableSegments = new CleanableSegments(state);
    }

    /**
     * Opens (creating if needed) the log in {@code directory} and recovers it: inactive segments load their
     * indexes (or are rescanned strictly when an index is missing or bad); the active segment is scanned batch
     * by batch and a torn or corrupt tail beyond the recovery point is truncated. Damage to flushed data
     * raises {@link LogCorruptionException}. Ends with the recovered log forced to disk.
     */
    public static Log open(FileIo io, Path directory, LogConfig config) {
        config.validate();
        RecoveryCheckpoint checkpoint = null;
        try {
            io.createDirectories(directory);
            checkpoint = new RecoveryCheckpoint(io, directory);
            Log log = new Log(io, directory, config, checkpoint);
            new LogLoader(log.state).load();
            return log;
        } catch (IOException e) {
            closeQuietly(checkpoint);
            throw new StorageException("cannot open log " + directory, e);
        } catch (StorageException e) {
            closeQuietly(checkpoint);
            throw e;
        }
    }

    private static void closeQuietly(RecoveryCheckpoint checkpoint) {
        if (checkpoint != null) {
            try {
                checkpoint.close();
            } catch (IOException ignored) {
                // Already failing with the more useful exception.
            }
        }
    }

    // ---------------------------------------------------------------- writer

    /**
     * Appends one record batch whose base offset has been assigned (it must equal {@link #logEndOffset()}),
     * rolling first when the active segment is full. Returns the new log end offset. Flushes when the
     * configured number of unflushed offsets is reached.
     *
     * @param batch exactly one RecordBatch v2, from its position to its limit; not modified
     * @throws StorageException when the write fails (the log is unchanged; retry after a full disk clears);
     *         or when the batch was written but the policy flush after it failed: then the log is offline
     *         ({@link #isOffline()}), whether the batch survives is decided by the recovery on reopen, and the
     *         partition restarts from the Raft log
     */
    public long append(ByteBuffer batch) {
        return appender.append(batch);
    }

    /**
     * Appends one record batch as the next offsets without copying it: it is written with its base offset set to
     * {@link #logEndOffset()} and its partition leader epoch set to {@code partitionLeaderEpoch}, from a 61-byte
     * copy of its header (neither field is covered by the CRC) followed by its records where they lie. The bytes of
     * {@code batch} are not modified: they may be shared (the Raft log cache holds them). Otherwise as
     * {@link #append(ByteBuffer)}.
     */
    public long appendAsNext(ByteBuffer batch, int partitionLeaderEpoch) {
        return appender.appendAsNext(batch, partitionLeaderEpoch);
    }

    /**
     * Rolls when {@code nowMs} lies more than {@code segment.ms} after the active segment's first batch
     * timestamp; true if it rolled. Appends pass the incoming batch's timestamp (as Kafka compares them),
     * retention ticks the replicated wall-clock time.
     */
    public boolean maybeRoll(long nowMs) {
        return roller.maybeRoll(nowMs);
    }

    /**
     * Closes the active segment (fsync, final index entries, index files written) and starts a new one at the
     * log end offset. Does nothing (returns false) when the active segment is empty.
     */
    public boolean roll() {
        return roller.roll();
    }

    /** Forces the active segment and records the recovery point; afterwards nothing appended is lost. */
    public void flush() {
        flusher.flush();
    }

    /**
     * Flushes when data has stayed unflushed for {@code flush.ms}; the age is measured from the first call
     * that found unflushed data. True if it flushed.
     */
    public boolean maybeFlush(long nowMs) {
        return flusher.maybeFlush(nowMs);
    }

    /** The periodic duties of the writer: roll by age and flush by time. */
    public void tick(long nowMs) {
        maybeRoll(nowMs);
        maybeFlush(nowMs);
    }

    /**
     * Applies retention: deletes the oldest inactive segments whose newest batch is older than
     * {@code retention.ms} (segments without timestamps are kept), then the oldest while the log exceeds
     * {@code retention.bytes}. Advances the log start offset; returns the number of segments deleted.
     */
    public int deleteExpired(long nowMs) {
        return deleteExpired(nowMs, Long.MAX_VALUE);
    }

    /**
     * As {@link #deleteExpired(long)}, deleting only segments that end at or below {@code upToOffset}: batches above
     * the high watermark may still be truncated by Raft, and are never retention's to delete.
     */
    public int deleteExpired(long nowMs, long upToOffset) {
        return retention.deleteExpired(nowMs, upToOffset);
    }

    /**
     * Moves the log start offset up to {@code offset} (DeleteRecords, and a restored snapshot's start): records below
     * it can no longer be read, and every segment wholly below it is deleted. The segment holding {@code offset}
     * stays, and so does the active segment. An offset at or below the current start changes nothing. Returns the
     * number of segments deleted.
     *
     * <p>The start offset is not written down by the log: it is replayed (DeleteRecords commands) or restored
     * (snapshots record it) by the partition, as retention's effect is.
     */
    public int deleteRecordsBefore(long offset) {
        return retention.deleteRecordsBefore(offset);
    }

    /**
     * Removes every batch at or above {@code offset}; a batch that contains {@code offset} is removed whole.
     * Returns the new log end offset (at most {@code offset}). An offset at or below the log start offset
     * empties the log and restarts it at {@code offset}. Used when a Raft replay or snapshot rewinds the log, before
     * the same committed batches come back: the segment that held {@code offset} then ends where it ended before
     * ({@link RollPlan}), so the replayed log has the same segments even where compaction shrank that segment.
     */
    public long truncateTo(long offset) {
        return truncation.truncateTo(offset, true);
    }

    /**
     * Removes batches from {@code offset} on that Raft never committed (a placed tail that a new leader replaced, or
     * that was written before a crash and never entered the Raft log), as {@link #truncateTo(long)} but without a
     * roll plan: what comes next is different batches, not a replay of the same ones.
     */
    public long truncateUncommittedTo(long offset) {
        return truncation.truncateTo(offset, false);
    }

    /**
     * Deletes every segment and restarts the log, empty, at {@code startOffset} (snapshot installation).
     * Atomic across a crash: once the "restart pending" checkpoint is on disk, the next open finishes the
     * restart; before that, the log is as it was.
     */
    public void truncateFullyAndStartAt(long startOffset) {
        truncation.truncateFullyAndStartAt(startOffset);
    }

    // ---------------------------------------------------------------- compaction (LogCleaner)

    /** What compaction sees of this log and the replacement of a segment by its compacted copy. */
    CleanableSegments cleanableSegments() {
        return cleanableSegments;
    }

    /** Makes the calling thread the log's single writer (a deliberate handover). */
    public void claimWriter() {
        state.writer = Thread.currentThread();
    }

    /**
     * Closes cleanly: final index entries and index files of the active segment, fsync, clean checkpoint (so
     * the next open skips the scan). A mutating call: a shutdown thread calls {@link #claimWriter()} first,
     * after the apply thread has stopped.
     */
    @Override
    public void close() {
        state.checkWriter();
        IOException error = null;
        if (state.failure == null) {
            try {
                state.active.flush();
                state.active.onBecomeInactive();
                state.checkpoint.write(state.logEndOffset, true);
            } catch (IOException e) {
                error = e;
            }
        }
        state.closeRetired();
        for (Segment segment : state.segments.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                error = error == null ? e : error;
            }
        }
        try {
            state.checkpoint.close();
        } catch (IOException e) {
            error = error == null ? e : error;
        }
        if (error != null) {
            throw new StorageException("close of " + state.directory + " failed", error);
        }
    }

    // ---------------------------------------------------------------- readers

    /**
     * Reads whole batches from one segment, starting with the batch that contains {@code fetchOffset}: that
     * batch is always returned whole (even beyond {@code maxBytes}), further batches while the slice stays
     * within {@code maxBytes} and the batches end below {@code upToOffset} (the high watermark). Returns an
     * empty slice at the log end or when the first batch is not below {@code upToOffset}. Safe on any thread.
     *
     * @throws OffsetOutOfRangeException when {@code fetchOffset} is below the log start or above the log end
     */
    public LogSlice read(long fetchOffset, int maxBytes, long upToOffset) {
        return reader.read(fetchOffset, maxBytes, upToOffset);
    }

    /** The largest record timestamp in the log, or NO_TIMESTAMP (-1) when it holds none. Any thread. */
    public long maxTimestamp() {
        return reader.maxTimestamp();
    }

    /** The offset of the first batch whose max timestamp is at or above {@code timestampMs} (batch granularity). */
    public OptionalLong offsetForTimestamp(long timestampMs) {
        return reader.offsetForTimestamp(timestampMs);
    }

    /**
     * Scans every segment (CRC-32C, lengths, dense offsets) without changing anything: an operator's or test's
     * deep check. Throws {@link LogCorruptionException} naming the first damaged file and position.
     */
    public void verify() {
        reader.verify();
    }

    /** The first offset still in the log (ListOffsets EARLIEST). */
    public long logStartOffset() {
        return state.logStartOffset;
    }

    /** One past the last appended offset (ListOffsets LATEST); published after the batch is in the file. */
    public long logEndOffset() {
        return state.logEndOffset;
    }

    /** Offsets below this are on disk (fsynced) and survive a crash. */
    public long flushedOffset() {
        return state.flushedOffset;
    }

    public long sizeBytes() {
        return state.sizeBytes();
    }

    /** The newest record timestamp of the segment based at {@code baseOffset}, -1 when it has none or is gone. */
    public long segmentMaxTimestamp(long baseOffset) {
        Segment segment = state.segments.get(baseOffset);
        return segment == null ? NO_TIMESTAMP : segment.maxTimestamp();
    }

    /**
     * Every segment's base offset and size, oldest first. Taken on the writer thread it is consistent with
     * {@link #logEndOffset()}; the sizes cover whole batches only.
     */
    public List<SegmentExtent> segmentExtents() {
        return segmentExtents(Long.MAX_VALUE);
    }

    /**
     * The extents of the segments' bytes below {@code upToOffset}, a batch boundary (the high watermark): segments
     * wholly above it are left out, the one it falls in is cut there. Writer thread.
     */
    public List<SegmentExtent> segmentExtents(long upToOffset) {
        return reader.segmentExtents(upToOffset);
    }

    /** Segments on disk, the active one included; safe to call from any thread. */
    public int segmentCount() {
        return state.segments.size();
    }

    public List<Long> segmentBaseOffsets() {
        return new ArrayList<>(state.segments.keySet());
    }

    public Path directory() {
        return state.directory;
    }

    /**
     * Follows {@code next} from now on: later rolls, retention and flushes use it; segments already written keep
     * their bounds. Writer only (a replicated Reconfigure applies it at the same log position on every replica).
     */
    public void reconfigure(LogConfig next) {
        state.checkWriter();
        state.config = next.validate();
    }

    public LogConfig config() {
        return state.config;
    }

    /** Whether an earlier failure took the log offline (reopen to recover). */
    public boolean isOffline() {
        return state.failure != null;
    }

    @Override
    public String toString() {
        return "Log[" + state.directory + ", offsets " + state.logStartOffset + ".." + state.logEndOffset + ", "
                + state.segments.size() + " segments]";
    }
}
