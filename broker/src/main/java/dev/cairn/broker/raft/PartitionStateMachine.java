package dev.cairn.broker.raft;

import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PartitionSnapshot;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition group's state machine: a thin adapter (style.md point 4) that decodes each committed entry,
 * calls {@link Partition#apply}, advances the applied index, and takes and loads snapshots.
 *
 * <p>Snapshots: the partition flushes its log, then a single file records the log start/end offsets and the
 * producer state at the applied index; Ratis then purges its log behind it. On start the log is truncated back
 * to the snapshot's end offset and Ratis replays the entries after it, which re-append the same bytes.
 *
 * <p>A storage failure while applying takes the partition offline: the entry's client gets
 * KAFKA_STORAGE_ERROR, later entries are refused, and reads fail until a restart recovers the log and replays.
 * Nothing is thrown out of {@code applyTransaction} (Ratis would stop the whole server).
 */
public final class PartitionStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStateMachine.class);

    private final Supplier<Partition> opener;
    private final Runnable onAppended;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private volatile Partition partition;
    private volatile StorageException offline;
    private Thread applyThread;

    /**
     * @param opener opens (and recovers) the partition's log when Ratis initializes the group
     * @param onAppended runs on the apply thread after each append (wakes parked fetches); must be quick
     */
    public PartitionStateMachine(Supplier<Partition> opener, Runnable onAppended) {
        this.opener = opener;
        this.onAppended = onAppended;
    }

    /** The partition, for readers; null until Ratis has initialized the group. */
    public Partition partition() {
        return partition;
    }

    /** The storage failure that took this partition offline, or null while it is healthy. */
    public StorageException offlineCause() {
        return offline;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        partition = opener.get();
        loadLatestSnapshot();
    }

    @Override
    public void reinitialize() throws IOException {
        storage.loadLatestSnapshot();
        partition.claimWriter();
        loadLatestSnapshot();
    }

    private void loadLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
        if (snapshot == null) {
            partition.restoreEmpty();
            return;
        }
        PartitionSnapshot state = PartitionSnapshot.decode(ByteBuffer.wrap(SnapshotFiles.read(snapshot)));
        partition.restore(snapshot.getIndex(), state);
        setLastAppliedTermIndex(snapshot.getTermIndex());
        LOG.info("{}: restored snapshot at raft index {} (log offsets {}..{})", partition, snapshot.getIndex(),
                state.logStartOffset(), state.logEndOffset());
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

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
            Command command = CommandCodec.decodeCommand(
                    entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
            result = partition.apply(entry.getIndex(), (int) entry.getTerm(), command);
        } catch (CommandFormatException e) {
            result = new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, e.getMessage());
        } catch (StorageException e) {
            offline = e;
            LOG.error("{}: storage failure at raft index {}; the partition is offline until restart", partition,
                    entry.getIndex(), e);
            updateLastAppliedTermIndex(TermIndex.valueOf(entry));
            return CompletableFuture.failedFuture(new StateMachineException(e.getMessage()));
        }
        updateLastAppliedTermIndex(TermIndex.valueOf(entry));
        if (result instanceof Result.Appended appended && !appended.duplicate()) {
            onAppended.run();
        }
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(result))));
    }

    /** The log is single-writer: the first apply claims it for Ratis's apply thread. */
    private void maybeClaimWriter() {
        Thread current = Thread.currentThread();
        if (applyThread != current) {
            applyThread = current;
            partition.claimWriter();
        }
    }

    /** Read-only queries (a group's committed offset), answered from applied state on the group's leader. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        Partition p = partition;
        if (p == null || offline != null) {
            return CompletableFuture.failedFuture(new StateMachineException("partition not available"));
        }
        Result result;
        try {
            String groupId = CommandCodec.decodeCommittedOffsetQuery(request.getContent().asReadOnlyByteBuffer());
            result = p.committedOffset(groupId).<Result>map(o -> new Result.OffsetFetched(o.offset(), o.metadata()))
                    .orElse(new Result.OffsetFetched(-1, null));
        } catch (CommandFormatException e) {
            result = new Result.Rejected(ErrorCode.INVALID_REQUEST, e.getMessage());
        } catch (StorageException e) {
            result = new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, e.getMessage());
        }
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandCodec.encode(result))));
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
        PartitionSnapshot state = partition.snapshot();
        SnapshotFiles.write(storage, applied.getTerm(), applied.getIndex(), state.encode());
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
