package dev.cairn.broker.partition;

import dev.cairn.broker.log.CompactionConfig;
import dev.cairn.broker.log.Invariant;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.partition.Command.Append;
import dev.cairn.broker.partition.Command.CommitOffset;
import dev.cairn.broker.partition.Command.DeleteOffset;
import dev.cairn.broker.partition.Command.DeleteRecords;
import dev.cairn.broker.partition.Command.EnforceRetention;
import dev.cairn.broker.partition.Command.Reconfigure;
import dev.cairn.broker.partition.SequenceCheck.Duplicate;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import dev.cairn.broker.partition.SequenceCheck.Reject;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The deterministic core of one topic-partition (style.md point 4): applies replicated {@link Command}s in Raft
 * log order to the {@link Log} and the idempotent-producer state. It reads no clock and no randomness; offsets
 * follow from the log prefix alone, so every replica that applies the same entries holds the same bytes.
 *
 * <p>Single writer: {@link #apply} and the snapshot calls run on the Raft group's apply thread. Readers
 * ({@link #read}, offset lookups) may run on any thread and see only applied, hence committed, data: the high
 * watermark is the log end offset.
 *
 * <p>Storage failures ({@code StorageException}) propagate: a replica that cannot write a committed entry must
 * not answer as if it had (the caller takes the partition offline; a restart recovers and replays).
 */
public final class Partition {
    private final String topic;
    private final int partition;
    private final Log log;
    private final OffsetStore offsets;
    private final ProducerStateTable producers = new ProducerStateTable();
    private final LeaderEpochs leaderEpochs = new LeaderEpochs();
    private final RecordBatch header = new RecordBatch();
    private final PartitionCompaction compaction;
    /** The broker's log settings, which the topic configs override. */
    private final LogConfig brokerLogConfig;
    /** The topic configs the partition was created with: what the log follows before any Reconfigure. */
    private final Map<String, String> initialTopicConfigs;
    private volatile Map<String, String> topicConfigs;
    private long appliedRaftIndex;
    /** Bytes read at a time when rebuilding the leader epochs from the log (snapshots from before format 5). */
    private static final int EPOCH_SCAN_BYTES = 1 << 20;

    /** A partition whose log was opened with its configs as they are, and is never reconfigured from others. */
    public Partition(String topic, int partition, Log log, OffsetStore offsets) {
        this(topic, partition, log, offsets, log.config(), Map.of());
    }

    /**
     * @param brokerLogConfig the broker's log settings, before topic overrides
     * @param initialTopicConfigs the topic configs the partition was created with; {@code log} was opened with
     *     {@code brokerLogConfig} overridden by them
     */
    public Partition(String topic, int partition, Log log, OffsetStore offsets, LogConfig brokerLogConfig,
            Map<String, String> initialTopicConfigs) {
        this.topic = topic;
        this.partition = partition;
        this.log = log;
        this.offsets = offsets;
        this.brokerLogConfig = brokerLogConfig;
        this.initialTopicConfigs = Map.copyOf(initialTopicConfigs);
        this.topicConfigs = this.initialTopicConfigs;
        this.compaction = new PartitionCompaction(log);
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public long appliedRaftIndex() {
        return appliedRaftIndex;
    }

    /** The topic configs this replica's log follows as of its last applied entry; any thread. */
    public Map<String, String> topicConfigs() {
        return topicConfigs;
    }

    /**
     * Applies one committed command.
     *
     * @param raftIndex the entry's index; must be above every index applied before
     * @param leaderEpoch the entry's Raft term, stamped into appended batches as their partitionLeaderEpoch
     */
    public Result apply(long raftIndex, int leaderEpoch, Command command) {
        Invariant.check(raftIndex > appliedRaftIndex, "raft index %d applied after %d", raftIndex, appliedRaftIndex);
        appliedRaftIndex = raftIndex;
        if (command instanceof Append append) {
            return applyAppend(leaderEpoch, append);
        }
        if (command instanceof EnforceRetention retention) {
            log.tick(retention.nowMs());
            int deleted = log.deleteExpired(retention.nowMs());
            producers.onLogTruncatedBelow(log.logStartOffset());
            leaderEpochs.onLogStartMoved(log.logStartOffset());
            return new Result.Retained(log.logStartOffset(), deleted);
        }
        if (command instanceof CommitOffset commit) {
            // The store keeps this group's applied Raft index with the offsets, in one atomic write, and ignores
            // a replayed entry it already holds (it returns false then): either way the commit is in place.
            offsets.commit(topic, partition, raftIndex, Map.of(commit.groupId(),
                    new CommittedOffset(commit.offset(), commit.metadata(), commit.commitTimeMs(),
                            commit.leaderEpoch())));
            return Result.OFFSET_COMMITTED;
        }
        if (command instanceof DeleteRecords delete) {
            long target = delete.offset() == DeleteRecords.HIGH_WATERMARK ? log.logEndOffset() : delete.offset();
            if (target < 0 || target > log.logEndOffset()) {
                return new Result.Rejected(ErrorCode.OFFSET_OUT_OF_RANGE, "cannot delete records below " + target
                        + ": the log ends at " + log.logEndOffset());
            }
            int deleted = log.deleteRecordsBefore(target);
            producers.onLogTruncatedBelow(log.logStartOffset());
            leaderEpochs.onLogStartMoved(log.logStartOffset());
            return new Result.Retained(log.logStartOffset(), deleted);
        }
        if (command instanceof Reconfigure reconfigure) {
            return reconfigure(reconfigure.topicConfigs());
        }
        if (command instanceof Command.Compact compact) {
            return compaction.apply(compact, CompactionConfig.of(topicConfigs));
        }
        if (command instanceof DeleteOffset delete) {
            boolean existed = offsets.fetch(delete.groupId(), topic, partition).isPresent();
            offsets.delete(topic, partition, raftIndex, delete.groupId());
            return new Result.OffsetDeleted(existed);
        }
        throw new IllegalArgumentException("unknown command " + command);
    }

    /**
     * Makes the log follow {@code configs} over the broker's settings. Values were validated before replication;
     * one that still fails is refused alike on every replica, and the log keeps its settings.
     */
    private Result reconfigure(Map<String, String> configs) {
        LogConfig next;
        try {
            next = brokerLogConfig.withTopicOverrides(configs);
        } catch (IllegalArgumentException | ArithmeticException e) {
            return new Result.Rejected(ErrorCode.INVALID_CONFIG, "topic configs " + configs + " rejected: "
                    + e.getMessage());
        }
        log.reconfigure(next);
        topicConfigs = Map.copyOf(configs);
        return Result.RECONFIGURED;
    }

    private Result applyAppend(int leaderEpoch, Append append) {
        RecordBatch batch;
        try {
            batch = header.wrap(append.batch(), append.batch().position());
        } catch (DecodeException e) {
            // The leader validated the batch before replication; reaching here means a bug, answered the same
            // way on every replica so that they stay identical.
            return new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, "replicated batch unreadable: " + e.getMessage());
        }
        if (batch.sizeInBytes() != append.batch().remaining() || batch.magic() != RecordBatchDescriptor.MAGIC_V2) {
            return new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, "replicated entry is not exactly one v2 batch");
        }
        long producerId = batch.producerId();
        short producerEpoch = batch.producerEpoch();
        int firstSequence = batch.baseSequence();
        int lastSequence = batch.lastSequence();
        int lastOffsetDelta = batch.lastOffsetDelta();
        long maxTimestamp = batch.maxTimestamp();
        boolean idempotent = producerId >= 0;
        if (idempotent) {
            SequenceCheck check = producers.check(producerId, producerEpoch, firstSequence, lastSequence);
            if (check instanceof Duplicate duplicate) {
                ProducerBatch original = duplicate.original();
                return new Result.Appended(original.baseOffset(), original.lastOffset(), -1, log.logStartOffset(),
                        true);
            }
            if (check instanceof Reject reject) {
                return new Result.Rejected(reject.error(), reject.reason());
            }
        }
        long baseOffset = log.logEndOffset();
        // Time-based rolling compares the incoming batch's timestamp with the segment's first one, as Kafka does;
        // against the append time, a producer writing old timestamps (a replay, a mirror) rolled on every append.
        log.maybeRoll(maxTimestamp);
        // The entry's bytes are shared with Raft's log cache: the log writes a patched copy of the header only.
        log.appendAsNext(append.batch(), leaderEpoch);
        leaderEpochs.onAppended(leaderEpoch, baseOffset);
        log.maybeFlush(append.appendTimeMs());
        long lastOffset = baseOffset + lastOffsetDelta;
        if (idempotent) {
            producers.onAppended(producerId, producerEpoch,
                    new ProducerBatch(firstSequence, lastSequence, baseOffset, lastOffset, maxTimestamp));
        }
        return new Result.Appended(baseOffset, lastOffset, -1, log.logStartOffset(), false);
    }

    // ---------------------------------------------------------------- readers (any thread)

    /** Reads committed batches from {@code fetchOffset}; see {@link Log#read}. */
    public LogSlice read(long fetchOffset, int maxBytes) {
        return log.read(fetchOffset, maxBytes, highWatermark());
    }

    /** Everything applied is committed, so the high watermark is the log end offset. */
    public long highWatermark() {
        return log.logEndOffset();
    }

    public long logStartOffset() {
        return log.logStartOffset();
    }

    /** The group's committed offset for this partition, as last applied here. */
    public Optional<CommittedOffset> committedOffset(String groupId) {
        return offsets.fetch(groupId, topic, partition);
    }

    /** Each group's committed offset for this partition, as last applied here; any thread. */
    public Map<String, Long> committedOffsets() {
        Map<String, Long> committed = new java.util.TreeMap<>();
        offsets.fetchAll(topic, partition).forEach((group, offset) -> committed.put(group, offset.offset()));
        return committed;
    }

    /** The groups with a committed offset for this partition, as last applied here; any thread. */
    public java.util.Set<String> committedGroups() {
        return offsets.fetchAll(topic, partition).keySet();
    }

    /** Bytes of the partition's log segments; safe to call from any thread (for metrics). */
    public long logSizeBytes() {
        return log.sizeBytes();
    }

    /** Segments of the partition's log; safe to call from any thread (for metrics). */
    public int logSegmentCount() {
        return log.segmentCount();
    }

    /** The largest record timestamp in the log, -1 when it holds no record. */
    public long maxTimestamp() {
        return log.maxTimestamp();
    }

    public OptionalLong offsetForTimestamp(long timestampMs) {
        return log.offsetForTimestamp(timestampMs);
    }

    /** The compaction pass the leader should submit now, if the topic is compacted and one is due; any thread. */
    public Optional<Command.Compact> compactionDue(long nowMs) {
        return compaction.due(nowMs, CompactionConfig.of(topicConfigs));
    }

    /** Cumulative compaction figures of this replica; any thread. */
    public CompactionStats compactionStats() {
        return compaction.stats();
    }

    /** OffsetForLeaderEpoch's answer for {@code epoch} while {@code currentEpoch} leads; see {@link LeaderEpochs}. */
    public LeaderEpochs.EndOffset endOffsetForEpoch(int epoch, int currentEpoch) {
        return leaderEpochs.endOffsetFor(epoch, currentEpoch, highWatermark());
    }

    // ---------------------------------------------------------------- snapshots (apply thread)

    /**
     * Flushes the log and captures what a snapshot at {@link #appliedRaftIndex()} must record: the log's bounds
     * and segment sizes, the producer state and the committed offsets (stored with every applied entry, so the
     * store holds exactly the state at this index).
     */
    public PartitionSnapshot snapshot() {
        log.flush();
        ByteBuffer state = ByteBuffer.allocate(producers.serializedSizeInBytes());
        producers.writeTo(state);
        return new PartitionSnapshot(log.logStartOffset(), log.logEndOffset(), state.array(),
                offsets.fetchAll(topic, partition), log.segmentExtents(), topicConfigs, leaderEpochs.toMap());
    }

    /**
     * Rewinds to a snapshot taken at {@code raftIndex}: anything appended after it is truncated, since Raft
     * replays those entries and replay appends them again, byte for byte.
     */
    public void restore(long raftIndex, PartitionSnapshot snapshot) {
        Invariant.check(log.logEndOffset() >= snapshot.logEndOffset(), "log ends at %d, before the snapshot's %d: "
                + "flushed data was lost", log.logEndOffset(), snapshot.logEndOffset());
        log.truncateTo(snapshot.logEndOffset());
        // Records deleted (DeleteRecords) below the snapshot's start stay deleted; the log does not record it.
        log.deleteRecordsBefore(snapshot.logStartOffset());
        producers.readFrom(ByteBuffer.wrap(snapshot.producerState()));
        restoreTopicConfigs(snapshot);
        restoreLeaderEpochs(snapshot);
        appliedRaftIndex = raftIndex;
    }

    /** The epochs as of the snapshot, or, in one from before they were recorded, as the log's batches say. */
    private void restoreLeaderEpochs(PartitionSnapshot snapshot) {
        if (snapshot.leaderEpochs() != null) {
            leaderEpochs.replaceWith(snapshot.leaderEpochs());
            leaderEpochs.onLogStartMoved(log.logStartOffset());
            return;
        }
        leaderEpochs.clear();
        long offset = log.logStartOffset();
        RecordBatch batch = new RecordBatch();
        try {
            while (offset < log.logEndOffset()) {
                LogSlice slice = log.read(offset, EPOCH_SCAN_BYTES, log.logEndOffset());
                if (slice.isEmpty()) {
                    break;
                }
                ByteBuffer bytes = slice.readBytes();
                for (int position = bytes.position(); position < bytes.limit(); ) {
                    batch.wrap(bytes, position);
                    leaderEpochs.onAppended(batch.partitionLeaderEpoch(), batch.baseOffset());
                    position += batch.sizeInBytes();
                }
                offset = slice.nextOffset();
            }
        } catch (java.io.IOException | DecodeException e) {
            throw new dev.cairn.broker.io.StorageException("reading " + this + "'s leader epochs from its log", e);
        }
    }

    /** The configs as of the snapshot; one without them predates reconfiguration, so the initial ones held. */
    private void restoreTopicConfigs(PartitionSnapshot snapshot) {
        reconfigure(snapshot.topicConfigs() == null ? initialTopicConfigs : snapshot.topicConfigs());
    }

    /**
     * Takes on a snapshot installed from the leader at {@code raftIndex}, once its segments are this log's
     * files: the log must end where the snapshot ends; the producer state and committed offsets are replaced.
     */
    public void restoreInstalled(long raftIndex, PartitionSnapshot snapshot) {
        if (snapshot.segments().isEmpty() && log.logEndOffset() != snapshot.logEndOffset()) {
            log.truncateFullyAndStartAt(snapshot.logEndOffset());
        }
        log.deleteRecordsBefore(snapshot.logStartOffset());
        Invariant.check(log.logEndOffset() == snapshot.logEndOffset() && log.logStartOffset()
                == snapshot.logStartOffset(), "installed log spans %d..%d, the snapshot %d..%d",
                log.logStartOffset(), log.logEndOffset(), snapshot.logStartOffset(), snapshot.logEndOffset());
        producers.readFrom(ByteBuffer.wrap(snapshot.producerState()));
        offsets.replacePartition(topic, partition, raftIndex, snapshot.committedOffsets());
        restoreTopicConfigs(snapshot);
        restoreLeaderEpochs(snapshot);
        appliedRaftIndex = raftIndex;
    }

    /** Without a snapshot Raft replays from its first entry, so the log restarts empty. */
    public void restoreEmpty() {
        log.truncateTo(0);
        leaderEpochs.clear();
        reconfigure(initialTopicConfigs);
        appliedRaftIndex = 0;
    }

    /** Hands the single-writer role to the calling thread (the Raft apply thread, after initialization). */
    public void claimWriter() {
        log.claimWriter();
    }

    /** Closes the log; Ratis closes a group on its own thread, which takes over the writer role to do so. */
    public void close() {
        log.claimWriter();
        log.close();
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
