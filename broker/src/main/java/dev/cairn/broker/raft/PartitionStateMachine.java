package dev.cairn.broker.raft;

import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.replica.GapFiller;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionSnapshot;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import dev.cairn.protocol.ErrorCode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition group's state machine: a thin adapter (style.md point 4) around {@link Partition}. With the write-once
 * path (docs/write-path.md) the leader places each append as it starts the transaction ({@link WriteOncePath}),
 * every replica writes the batch into its segment as Ratis appends the entry ({@link PlacedBatchData}), and applying
 * the committed entry moves the high watermark; a replica whose segments lost committed batches refills them from
 * the leader ({@link GapFiller}). Without it (an in-memory partition log), the batch stays in the Raft log and is
 * placed as the entry applies.
 *
 * <p>Snapshots ({@link PartitionSnapshots}, seen by Ratis through {@link PartitionSnapshotStorage}): the partition
 * flushes its log, then a manifest records the log bounds, segment sizes up to the high watermark, producer state and
 * committed offsets at the applied index, beside hard links to the segment files; Ratis then purges its log behind
 * it. On start the high watermark goes back to the snapshot's end and Ratis replays the entries after it, which find
 * their batches in the segments. A follower too far behind for the leader's Raft log receives the leader's snapshot,
 * segments included, and rebuilds its log from it.
 *
 * <p>A storage failure while applying takes the partition offline: the entry's client gets
 * KAFKA_STORAGE_ERROR, later entries are refused, and reads fail until a restart recovers the log and replays.
 * Nothing unchecked is thrown out of {@code applyTransaction} or {@code takeSnapshot}: Ratis's apply thread would
 * retry in an endless loop that logs an error each time (one such loop wrote 18 GB of log in a test run).
 */
public final class PartitionStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStateMachine.class);

    private final Supplier<Partition> opener;
    private final Path logDirectory;
    private final Runnable onAppended;
    private final PartitionSnapshotStorage storage = new PartitionSnapshotStorage();
    private final SnapshotByBytes snapshotByBytes;
    /** Null when batches stay in the Raft log (the old format, for an in-memory partition log). */
    private final WriteOncePath writeOnce;
    /** Null when gaps are not filled from the leader (a single node, tests). */
    private final GapFiller gapFiller;
    private final BiFunction<Command, Long, CompletableFuture<Result>> laneSubmit;
    private final PlacedBatchData placedData;
    private volatile Partition partition;
    private volatile StorageException offline;
    private volatile int snapshotsInstalled;
    private volatile boolean leading;
    private Thread applyThread;

    /**
     * @param opener opens (and recovers) the partition's log when Ratis initializes the group
     * @param logDirectory the directory the opener's log lives in (an installed snapshot's segments go there)
     * @param onAppended runs on the apply thread after each append (wakes parked fetches); must be quick
     */
    public PartitionStateMachine(Supplier<Partition> opener, Path logDirectory, Runnable onAppended) {
        this(opener, logDirectory, onAppended, SnapshotByBytes.never(), false, false, null,
                ForwardedCommand.NOT_SERVED);
    }

    /**
     * @param snapshotByBytes asks Ratis for a snapshot once this many bytes of entries were applied since the last
     * @param writeOnce batches go into the partition's segments as their entries are appended, and the Raft log keeps
     *     only where they went (docs/write-path.md); otherwise the Raft log holds them and applying appends them
     * @param fsyncBeforeAck with writeOnce: the segments are forced before Raft counts an entry as flushed
     * @param leaderCopy copies the leader's committed batches into this replica's gaps; null for none
     * @param laneSubmit submits, through this broker's lane, a command another broker forwarded (ForwardedCommand)
     */
    PartitionStateMachine(Supplier<Partition> opener, Path logDirectory, Runnable onAppended,
            SnapshotByBytes snapshotByBytes, boolean writeOnce, boolean fsyncBeforeAck,
            GapFiller.LeaderCopy leaderCopy, BiFunction<Command, Long, CompletableFuture<Result>> laneSubmit) {
        this.laneSubmit = laneSubmit;
        this.opener = opener;
        this.logDirectory = logDirectory;
        this.onAppended = onAppended;
        this.snapshotByBytes = snapshotByBytes;
        this.writeOnce = writeOnce ? new WriteOncePath() : null;
        this.placedData = new PlacedBatchData(() -> offline == null ? partition : null, fsyncBeforeAck);
        this.gapFiller = leaderCopy == null ? null
                : new GapFiller(leaderCopy, placedData::logGrew, () -> offline != null);
    }

    /** The partition, for readers; null until Ratis has initialized the group. */
    public Partition partition() {
        return partition;
    }

    /** How many snapshots this replica installed from a leader since it started. */
    public int snapshotsInstalled() {
        return snapshotsInstalled;
    }

    /** The storage failure that took this partition offline, or null while it is healthy. */
    public StorageException offlineCause() {
        return offline;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        PartitionSnapshots.Stored snapshot = storage.latest();
        if (snapshot != null && !snapshot.applied()) {
            install(snapshot);   // a crash interrupted an installation: finish it
        } else {
            partition = opener.get();
            restore(snapshot);
        }
        StateMachineLifecycle.started(this);
    }

    @Override
    public void pause() {
        placedData.installStarted();
        StateMachineLifecycle.pause(this);
    }

    /** After Ratis installed a snapshot from the leader (on the apply thread, with the group paused). */
    @Override
    public void reinitialize() throws IOException {
        storage.reload();
        PartitionSnapshots.Stored snapshot = storage.latest();
        if (snapshot != null && !snapshot.applied()) {
            install(snapshot);
        } else {
            partition.claimWriter();
            restore(snapshot);
        }
        StateMachineLifecycle.resumed(this);
        placedData.installFinished();
    }

    /** Rewinds the local log to a snapshot this replica took itself (or to empty without one). */
    private void restore(PartitionSnapshots.Stored snapshot) throws IOException {
        if (snapshot == null) {
            partition.restoreEmpty();
            return;
        }
        partition.restore(snapshot.index(), snapshot.state());
        setLastAppliedTermIndex(TermIndex.valueOf(snapshot.term(), snapshot.index()));
        LOG.info("{}: restored snapshot at raft index {} (log offsets {}..{})", partition, snapshot.index(),
                snapshot.state().logStartOffset(), snapshot.state().logEndOffset());
        if (snapshot.legacy()) {
            // Written before snapshots carried segments: rewrite it in the current layout, so that it can be
            // shipped to a follower. The log now ends at the snapshot, so its segments are the snapshot's.
            storage.snapshots().write(snapshot.term(), snapshot.index(), partition.snapshot(), logDirectory);
            storage.snapshots().cleanup(1);
        }
    }

    /**
     * Rebuilds this replica from a snapshot installed from the leader: the log's files are replaced by the
     * snapshot's segments, then producer state and committed offsets by the manifest's.
     */
    private void install(PartitionSnapshots.Stored snapshot) throws IOException {
        Partition previous = partition;
        if (previous != null) {
            previous.close();
        }
        storage.snapshots().linkSegmentsInto(snapshot, logDirectory);
        Partition installed = opener.get();
        installed.claimWriter();
        installed.restoreInstalled(snapshot.index(), snapshot.state());
        storage.snapshots().markApplied(snapshot);
        snapshotsInstalled++;
        offline = null;
        partition = installed;
        setLastAppliedTermIndex(TermIndex.valueOf(snapshot.term(), snapshot.index()));
        applyThread = Thread.currentThread();
        LOG.info("{}: installed the leader's snapshot at raft index {} (log offsets {}..{}, {} segments, {} groups' "
                + "offsets)", installed, snapshot.index(), snapshot.state().logStartOffset(),
                snapshot.state().logEndOffset(), snapshot.state().segments().size(),
                snapshot.state().committedOffsets().size());
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    // ---------------------------------------------------------------- the write-once path (WriteOncePath)

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        if (writeOnce == null || offline != null) {
            return super.startTransaction(request);
        }
        return writeOnce.startTransaction(this, getServer().join().getDivision(getGroupId()), partition, request);
    }

    /** A replica's transaction for an entry it appends or applies: the command is decoded once, kept as its context. */
    @Override
    public TransactionContext startTransaction(LogEntryProto entry, RaftPeerRole role) {
        TransactionContext.Builder builder = TransactionContext.newBuilder().setStateMachine(this).setLogEntry(entry)
                .setServerRole(role);
        if (entry.hasStateMachineLogEntry()) {
            builder.setStateMachineContext(WriteOncePath.decode(entry.getStateMachineLogEntry()));
        }
        return builder.build();
    }

    @Override
    public TransactionContext preAppendTransaction(TransactionContext trx) throws IOException {
        if (writeOnce != null) {
            writeOnce.onAppending(trx);
        }
        return trx;
    }

    @Override
    public TransactionContext cancelTransaction(TransactionContext trx) throws IOException {
        if (writeOnce != null) {
            writeOnce.onCancelled(trx);
        }
        return trx;
    }

    /** Where batches are written, read back and flushed (the write-once path's DataApi). */
    @Override
    public DataApi data() {
        return placedData;
    }

    // ---------------------------------------------------------------- applying committed entries

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        maybeClaimWriter();
        Result result;
        if (offline != null) {
            updateLastAppliedTermIndex(TermIndex.valueOf(entry));
            return CompletableFuture.failedFuture(new StateMachineException(partition + " is offline: "
                    + offline.getMessage()));
        }
        try {
            // As a list: on the leader the entry is the rope of the command's parts (CommandCodec.encodeParts), and
            // one buffer would be a copy of it.
            Command command = trx.getStateMachineContext() instanceof Command decoded ? decoded : CommandCodec
                    .decodeCommand(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBufferList());
            boolean replayed = command instanceof Command.AppendAt && entry.getStateMachineLogEntry()
                    .getStateMachineEntry().getStateMachineData().isEmpty();
            snapshotByBytes.onApplied(command instanceof Command.AppendAt at ? at.sizeBytes()
                    : entry.getStateMachineLogEntry().getLogData().size());
            result = applyFillingGaps(entry, command, replayed);
        } catch (CommandFormatException e) {
            snapshotByBytes.onApplied(entry.getStateMachineLogEntry().getLogData().size());
            result = new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, e.getMessage());
        } catch (RuntimeException e) {
            // A storage failure, or a broken invariant: thrown to Ratis, its apply thread would retry the entry in a
            // loop that logs an error each time (StateMachineUpdater.run) and never ends.
            StorageException failure = e instanceof StorageException storage ? storage
                    : new StorageException("applying Raft entry " + entry.getIndex() + " failed: " + e, e);
            takeOffline(failure, entry.getIndex());
            updateLastAppliedTermIndex(TermIndex.valueOf(entry));
            return CompletableFuture.failedFuture(new StateMachineException(failure.getMessage()));
        }
        updateLastAppliedTermIndex(TermIndex.valueOf(entry));
        if (result instanceof Result.Appended appended && !appended.duplicate()) {
            onAppended.run();
        } else if (result instanceof Result.Retained retained && retained.segmentsDeleted() > 0) {
            releaseDeletedSegments(entry);
        }
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(result))));
    }

    /**
     * Ratis stopped this group's Raft log on this replica (a batch or entry could not be written): the partition goes
     * offline here at once, and its leadership is handed over (LeadershipBalancer). A batch that could not be read back
     * for a lagging follower leaves the log running and is not this.
     */
    @Override
    public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
        if (!PlacedBatchData.isReadBackFailure(cause)) {
            long index = failedEntry == null ? -1 : failedEntry.getIndex();
            takeOffline(new StorageException("the Raft log stopped at entry " + index + ": " + cause, cause), index);
        }
    }

    /** Logs this broker taking or losing the partition's leadership, as Kafka logs leader changes. */
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
        boolean leads = member.getPeerId().equals(newLeaderId);
        if (leads != leading) {
            leading = leads;
            LOG.info("{}: this broker {} its leader (the leader is {})", partition, leads ? "is now" : "is no longer",
                    newLeaderId == null ? "not known yet" : "broker " + newLeaderId);
        }
    }

    private void takeOffline(StorageException cause, long raftIndex) {
        if (offline == null) {
            offline = cause;
            LOG.error("{}: storage failure at raft index {}; the partition is offline until restart", partition,
                    raftIndex, cause);
        }
        placedData.failWaiting(cause);
    }

    /** Applies the entry, filling a gap in this replica's log from the leader first where there is one. */
    private Result applyFillingGaps(LogEntryProto entry, Command command, boolean replayed) {
        return gapFiller == null ? partition.apply(entry.getIndex(), (int) entry.getTerm(), command, replayed)
                : gapFiller.apply(partition, entry.getIndex(), (int) entry.getTerm(), command, replayed);
    }

    /**
     * Retention deleted segments, but snapshots hold hard links to them: snapshot again at this entry and drop
     * the older snapshots, so the space is freed now rather than after the next automatic snapshot (which an
     * idle partition may not reach for a long time). A failure here only delays that.
     */
    private void releaseDeletedSegments(LogEntryProto entry) {
        try {
            storage.snapshots().write(entry.getTerm(), entry.getIndex(), partition.snapshot(), logDirectory);
            storage.snapshots().cleanup(1);
        } catch (IOException | StorageException e) {
            LOG.warn("{}: could not snapshot after retention; deleted segments keep their space until the next "
                    + "snapshot", partition, e);
        }
    }

    /** The log is single-writer: the first apply claims it for Ratis's apply thread. */
    private void maybeClaimWriter() {
        Thread current = Thread.currentThread();
        if (applyThread != current) {
            applyThread = current;
            partition.claimWriter();
        }
    }

    /** Queries answered from applied state ({@link PartitionQueries}), and commands forwarded to this leader's lane. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        Partition p = partition;
        if (p == null || offline != null) {
            return CompletableFuture.failedFuture(new StateMachineException("partition not available"));
        }
        if (ForwardedCommand.isForwarded(request.getContent().asReadOnlyByteBuffer())) {
            return ForwardedCommand.handle(request.getContent().asReadOnlyByteBuffer(), laneSubmit);
        }
        return CompletableFuture.completedFuture(PartitionQueries.answer(p, request));
    }

    @Override
    public long takeSnapshot() throws IOException {
        if (offline != null) {
            return getLatestSnapshot() == null ? -1 : getLatestSnapshot().getIndex();
        }
        maybeClaimWriter();
        TermIndex applied = getLastAppliedTermIndex();
        if (applied == null) {
            return -1;
        }
        PartitionSnapshot state;
        try {
            state = partition.snapshot();
        } catch (RuntimeException e) {
            // Ratis logs an IOException from here once; anything else would spin its apply thread (see above).
            takeOffline(e instanceof StorageException storage ? storage
                    : new StorageException("snapshot at " + applied + " failed: " + e, e), applied.getIndex());
            throw new IOException(partition + ": snapshot at " + applied + " failed", e);
        }
        storage.snapshots().write(applied.getTerm(), applied.getIndex(), state, logDirectory);
        snapshotByBytes.onSnapshotTaken();
        return applied.getIndex();
    }

    @Override
    public void close() throws IOException {
        super.close();
        Partition p = partition;
        if (p != null) {
            p.close();
        }
    }
}
