package dev.cairn.broker.partition;

import dev.cairn.broker.log.CompactionConfig;
import dev.cairn.broker.log.Invariant;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.DeleteRecords;
import dev.cairn.broker.partition.Command.EnforceRetention;
import dev.cairn.broker.partition.Command.Reconfigure;
import dev.cairn.broker.offsets.OffsetStore;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import dev.cairn.protocol.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The deterministic core of one topic-partition (style.md point 4): applies replicated {@link Command}s in Raft log
 * order to the {@link Log}, the producer state, the transactions and the committed offsets. It reads no clock and no
 * randomness, so every replica that applies the same entries holds the same bytes.
 *
 * <p>Single writer: {@link #apply} and the snapshot calls run on the Raft group's apply thread. Readers may run on
 * any thread and see only committed data, below the high watermark (placed batches may lie beyond it).
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
    private final TransactionIndex transactions = new TransactionIndex();
    private final CoordinatorTransactions coordinator = new CoordinatorTransactions();
    private final TransactionVerifications verifications = new TransactionVerifications();
    private final RecordBatch header = new RecordBatch();
    private final PartitionCompaction compaction;
    private final TopicConfigState configs;
    private final PlacedBatches placed;
    private final PartitionPlacements placements;
    /** Guards log, producer state, high watermark: placements (Raft's append path) race the apply thread. */
    private final Object writeLock = new Object();
    private volatile long appliedRaftIndex;
    /** One past the last committed offset: readers stop here; placed batches may lie beyond it. */
    private volatile long highWatermark;

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
        this.configs = new TopicConfigState(log, brokerLogConfig, initialTopicConfigs);
        this.compaction = new PartitionCompaction(log, transactions, verifications);
        this.placed = new PlacedBatches(log);
        this.placements = new PartitionPlacements(writeLock, log, placed, this::highWatermark);
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
        return configs.current();
    }

    /**
     * Applies one committed command.
     *
     * @param raftIndex the entry's index; must be above every index applied before
     * @param leaderEpoch the entry's Raft term, stamped into appended batches as their partitionLeaderEpoch
     */
    public Result apply(long raftIndex, int leaderEpoch, Command command) {
        return apply(raftIndex, leaderEpoch, command, false);
    }

    /** As {@link #apply(long, int, Command)}; {@code replayed}: back from the Raft log without data (byte-check). */
    public Result apply(long raftIndex, int leaderEpoch, Command command, boolean replayed) {
        Invariant.check(raftIndex > appliedRaftIndex, "raft index %d applied after %d", raftIndex, appliedRaftIndex);
        Result outsideLog = OffsetCommands.apply(offsets, topic, partition, raftIndex, command);
        if (outsideLog != null || (outsideLog = coordinator.apply(command)) != null
                || (outsideLog = transactions.apply(command)) != null) {
            OffsetCommands.commit(offsets, topic, partition, raftIndex, transactions.drainCommittedOffsets());
            appliedRaftIndex = raftIndex;
            return outsideLog;
        }
        synchronized (writeLock) {
            log.claimWriter();
            Result result = applyToLog(leaderEpoch, command, replayed);
            OffsetCommands.commit(offsets, topic, partition, raftIndex, transactions.drainCommittedOffsets());
            appliedRaftIndex = raftIndex;
            return result;
        }
    }

    private Result applyToLog(int leaderEpoch, Command command, boolean replayed) {
        if (command instanceof AppendAt at) {
            return applyPlaced(leaderEpoch, at, replayed);
        }
        if (command instanceof Command.AppendDuplicate duplicate) {
            return new Result.Appended(duplicate.baseOffset(), duplicate.lastOffset(), -1, log.logStartOffset(), true);
        }
        if (command instanceof Command.AppendRefused refused) {
            return new Result.Rejected(refused.error(), refused.reason());
        }
        if (AppendPlanner.carriesItsBatch(command)) {
            return applyUnplaced(leaderEpoch, AppendPlanner.decideUnplaced(command, leaderEpoch, producers,
                    highWatermark, header, transactions), AppendPlanner.unplacedBatch(command));
        }
        if (command instanceof EnforceRetention retention) {
            return LogStartMoves.enforceRetention(log, retention.nowMs(), highWatermark, producers, leaderEpochs,
                    transactions, verifications);
        }
        if (command instanceof DeleteRecords delete) {
            return LogStartMoves.deleteRecords(log, delete.offset(), highWatermark, producers, leaderEpochs,
                    transactions, verifications);
        }
        if (command instanceof Reconfigure reconfigure) {
            return configs.apply(reconfigure.topicConfigs());
        }
        if (command instanceof Command.Compact compact) {
            return compaction.apply(compact, CompactionConfig.of(configs.current()), highWatermark);
        }
        throw new IllegalArgumentException("unknown command " + command);
    }

    /**
     * An append or a marker in the old format (the batch in the Raft log, placed as it applies): entries written
     * before the write-once path, and the Maelstrom node, whose partition log is in memory (batches cannot live there).
     */
    private Result applyUnplaced(int leaderEpoch, Command placement, ByteBuffer batch) {
        if (placement instanceof AppendAt at) {
            placed.place(at, batch, leaderEpoch, highWatermark, true);
            return applyPlaced(leaderEpoch, at, false);
        }
        return applyToLog(leaderEpoch, placement, false);
    }

    /** A placed batch commits: it is in the log already (checked), and becomes visible to readers. */
    private Result applyPlaced(int leaderEpoch, AppendAt at, boolean replayed) {
        Invariant.check(at.baseOffset() == highWatermark, "batch placed at %d commits at the high watermark %d",
                at.baseOffset(), highWatermark);
        placed.checkCommitted(at, replayed && !CompactionConfig.of(configs.current()).compacted());
        AppendPlanner.recordProducer(producers, at);
        transactions.onCommitted(at);
        leaderEpochs.onAppended(leaderEpoch, at.baseOffset());
        highWatermark = at.lastOffset() + 1;
        log.maybeFlush(at.appendTimeMs());
        return new Result.Appended(at.baseOffset(), at.lastOffset(), -1, log.logStartOffset(), false);
    }

    // ---------------------------------------------------------------- placed batches (Raft's append path)

    /** Writes of batches the leader placed, as their Raft entries are appended here, and reads of them back. */
    public PartitionPlacements placements() {
        return placements;
    }

    /** Forces the log to disk (before Raft acknowledges, when every acknowledged write is fsynced). */
    public void flush() {
        synchronized (writeLock) {
            log.claimWriter();
            log.flush();
        }
    }

    /** The applied state a leader plans placements from: a copy, consistent at its applied index. */
    public CommittedView committedView() {
        synchronized (writeLock) {
            return new CommittedView(appliedRaftIndex, highWatermark, producers.copy(),
                    transactions.openTransactions(), transactions.abortedCount());
        }
    }

    // ---------------------------------------------------------------- readers (any thread)

    /** Reads committed batches from {@code fetchOffset}; see {@link Log#read}. */
    public LogSlice read(long fetchOffset, int maxBytes) {
        return log.read(fetchOffset, maxBytes, highWatermark());
    }

    /** A read_committed read below {@code upTo} (the last stable offset): {@link TransactionIndex#readCommitted}. */
    public TransactionIndex.CommittedRead readCommitted(long offset, int maxBytes, long upTo) {
        return transactions.readCommitted(offset, () -> log.read(offset, maxBytes, Math.min(upTo, highWatermark)));
    }

    /** Where read_committed readers stop: before the first open transaction (not below the log start, as Kafka). */
    public long lastStableOffset() {
        return Math.max(log.logStartOffset(), transactions.lastStableOffset(highWatermark));
    }

    /** The aborted transactions a read_committed fetch of {@code [fromOffset, upToOffset)} names; any thread. */
    public java.util.List<TransactionIndex.Aborted> abortedTransactions(long fromOffset, long upToOffset) {
        return transactions.abortedWithin(fromOffset, upToOffset);
    }

    /** Whether the producer has a transaction open here as of the last applied entry; any thread. */
    public boolean transactionOpen(long producerId) {
        return transactions.isOpen(producerId);
    }

    /** This replica's KIP-890 admissions while it leads (leader-local, never replicated); any thread. */
    public TransactionVerifications verifications() {
        return verifications;
    }

    /** Transactional ids this partition coordinates (all, or with a transaction open or ending); any thread. */
    public java.util.List<TransactionRecord> coordinatedTransactions(boolean activeOnly) {
        return coordinator.records(activeOnly);
    }

    /** One past the last batch in the log, committed or only placed; any thread. */
    public long logEndOffset() {
        return log.logEndOffset();
    }

    /** One past the last committed offset; placed batches may lie beyond it in the log. */
    public long highWatermark() {
        return highWatermark;
    }

    public long logStartOffset() {
        return log.logStartOffset();
    }

    /** The group's committed offset for this partition, as last applied here. */
    public Optional<CommittedOffset> committedOffset(String groupId) {
        return offsets.fetch(groupId, topic, partition);
    }

    /** Whether a producer's open transaction holds an offset of {@code groupId} for this partition; any thread. */
    public boolean hasPendingOffset(String groupId) {
        return transactions.hasPendingOffset(groupId);
    }

    /** Each group's committed offset for this partition, as last applied here; any thread. */
    public Map<String, CommittedOffset> committedOffsets() {
        return offsets.fetchAll(topic, partition);
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

    /** As {@link Log#offsetForTimestamp}, among committed batches only. */
    public OptionalLong offsetForTimestamp(long timestampMs) {
        OptionalLong found = log.offsetForTimestamp(timestampMs);
        return found.isPresent() && found.getAsLong() >= highWatermark ? OptionalLong.empty() : found;
    }

    /** The compaction pass the leader should submit now, if the topic is compacted and one is due; any thread. */
    public Optional<Command.Compact> compactionDue(long nowMs) {
        return compaction.due(nowMs, CompactionConfig.of(configs.current()), highWatermark);
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

    /** Flushes the log and captures the state as of {@link #appliedRaftIndex()} (offsets are stored per entry). */
    public PartitionSnapshot snapshot() {
        synchronized (writeLock) {
            log.claimWriter();
            log.flush();
            ByteBuffer state = ByteBuffer.allocate(producers.serializedSizeInBytes());
            producers.writeTo(state);
            return new PartitionSnapshot(log.logStartOffset(), highWatermark, state.array(),
                    offsets.fetchAll(topic, partition), log.segmentExtents(highWatermark), configs.current(),
                    leaderEpochs.toMap(), transactions.encode(), coordinator.encode());
        }
    }

    /**
     * Rewinds to a snapshot taken at {@code raftIndex}: the high watermark goes back to the snapshot's end, and
     * Raft replays the entries after it. Batches beyond it stay: placed ones are what the replayed entries commit
     * (they are checked as they do); an entry of the old format cuts them and appends its batch again.
     */
    public void restore(long raftIndex, PartitionSnapshot snapshot) {
        Invariant.check(log.logEndOffset() >= snapshot.logEndOffset(), "log ends at %d, before the snapshot's %d: "
                + "flushed data was lost", log.logEndOffset(), snapshot.logEndOffset());
        highWatermark = snapshot.logEndOffset();
        // Records deleted (DeleteRecords) below the snapshot's start stay deleted; the log does not record it.
        log.deleteRecordsBefore(snapshot.logStartOffset());
        restoreDerivedState(snapshot);
        appliedRaftIndex = raftIndex;
    }

    /** The producer state, topic configs, leader epochs and transactions as of the snapshot (at the high watermark). */
    private void restoreDerivedState(PartitionSnapshot snapshot) {
        producers.readFrom(ByteBuffer.wrap(snapshot.producerState()));
        configs.restore(snapshot.topicConfigs());
        leaderEpochs.restore(snapshot.leaderEpochs(), log, highWatermark);
        transactions.restore(snapshot.transactionState(), log.logStartOffset());
        coordinator.restore(snapshot.coordinatorState());
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
        offsets.replacePartition(topic, partition, raftIndex, snapshot.committedOffsets());
        highWatermark = snapshot.logEndOffset();
        restoreDerivedState(snapshot);
        appliedRaftIndex = raftIndex;
    }

    /** Without a snapshot Raft replays from its first entry: nothing is committed until it does. */
    public void restoreEmpty() {
        highWatermark = 0;
        leaderEpochs.clear();
        transactions.clear();
        coordinator.clear();
        configs.restore(null);
        appliedRaftIndex = 0;
    }

    /** Hands the single-writer role to the calling thread (the Raft apply thread, after initialization). */
    public void claimWriter() {
        synchronized (writeLock) {   // never while another thread writes under the lock (the engine's loop places)
            log.claimWriter();
        }
    }

    /** Closes the log; Ratis closes a group on its own thread, which takes over the writer role to do so. */
    public void close() {
        synchronized (writeLock) {
            log.claimWriter();
            log.close();
        }
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
