package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.ClusterMetadata;
import dev.cairn.broker.cluster.MetadataCodec;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataFormatException;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.protocol.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The metadata group's state machine: a thin adapter that decodes each entry, calls
 * {@link ClusterMetadata#apply}, advances the applied index, and takes and loads snapshots (style.md point 4).
 * A committed entry that cannot be decoded is answered with a deterministic rejection on every replica, so
 * replicas stay identical and the server keeps running.
 */
public final class MetadataStateMachine extends BaseStateMachine {
    private final ClusterMetadata metadata;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final LongConsumer onApplied;

    /** @param onApplied told on the apply thread each time the applied index advances; must return quickly */
    public MetadataStateMachine(ClusterMetadata metadata, LongConsumer onApplied) {
        this.metadata = metadata;
        this.onApplied = onApplied;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        loadLatestSnapshot();
        StateMachineLifecycle.started(this);
    }

    @Override
    public void pause() {
        StateMachineLifecycle.pause(this);
    }

    /** After Ratis installed the leader's snapshot (this broker was behind the purged metadata log). */
    @Override
    public void reinitialize() throws IOException {
        storage.loadLatestSnapshot();
        loadLatestSnapshot();
        StateMachineLifecycle.resumed(this);
    }

    private void loadLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.getLatestSnapshot();
        if (snapshot == null) {
            return;
        }
        MetadataImage image = MetadataCodec.decodeSnapshot(ByteBuffer.wrap(SnapshotFiles.read(snapshot)));
        metadata.restore(image);
        setLastAppliedTermIndex(snapshot.getTermIndex());
        onApplied.accept(snapshot.getIndex());
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        MetadataResult result;
        try {
            MetadataCommand command = MetadataCodec.decodeCommand(
                    entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
            result = metadata.apply(entry.getIndex(), command);
        } catch (MetadataFormatException e) {
            result = new MetadataResult.Rejected(ErrorCode.INVALID_REQUEST, e.getMessage());
        }
        updateLastAppliedTermIndex(TermIndex.valueOf(entry));
        onApplied.accept(entry.getIndex());
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(MetadataCodec.encode(result))));
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex applied = getLastAppliedTermIndex();
        MetadataImage image = metadata.image();
        SnapshotFiles.write(storage, applied.getTerm(), applied.getIndex(), MetadataCodec.encodeSnapshot(image));
        return applied.getIndex();
    }
}
