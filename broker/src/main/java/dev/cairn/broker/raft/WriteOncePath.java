package dev.cairn.broker.raft;

import dev.cairn.broker.partition.AppendPlanner;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Command.Append;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.TxnMarker;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.CommittedView;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacementCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The leader's half of the write-once path (docs/write-path.md): an append is placed before its Raft entry exists,
 * and the entry carries the placement as its log data and the batch as its state machine data, which Ratis hands to
 * every replica's {@code write()} (so the batch goes into the segment, and the Raft log keeps only the placement).
 *
 * <p>Placements follow the order entries enter the Raft log because one submit lane per group starts and appends
 * each entry before the next (SubmitLanes); {@link #onAppending} checks it under Ratis's append lock, and a placement
 * out of order is refused, never written. The planner is rebuilt for each leader term from the applied state and
 * the placements in the Raft log after it.
 */
final class WriteOncePath {
    private final AppendPlanner planner = new AppendPlanner();

    /** The transaction for a client request: placed when it is an append or a marker, Ratis's default otherwise. */
    TransactionContext startTransaction(StateMachine machine, RaftServer.Division division, Partition partition,
            RaftClientRequest request) throws IOException {
        ByteString content = request.getMessage().getContent();
        Command command;
        try {
            command = CommandCodec.decodeCommand(content.asReadOnlyByteBufferList());
        } catch (CommandFormatException e) {
            command = null;   // the apply answers it
        }
        TransactionContext.Builder builder = TransactionContext.newBuilder().setStateMachine(machine)
                .setServerRole(RaftPeerRole.LEADER).setClientRequest(request);
        if (!(command instanceof Append || command instanceof TxnMarker) || partition == null) {
            return builder.setStateMachineContext(command).build();
        }
        Command placement;
        try {
            placement = plan(division, partition, command);
        } catch (PlacementNotReadyException e) {
            return builder.build().setException(e);
        }
        builder.setLogData(UnsafeByteOperations.unsafeWrap(PlacementCodec.encode(placement)))
                .setStateMachineContext(placement);
        if (placement instanceof AppendAt) {
            builder.setStateMachineData(command instanceof TxnMarker marker
                    ? UnsafeByteOperations.unsafeWrap(AppendPlanner.markerBatch(marker))
                    : content.substring(CommandCodec.APPEND_HEADER_BYTES));
        }
        return builder.build();
    }

    /** Places an append, or a transaction marker as the control batch it becomes. */
    private Command plan(RaftServer.Division division, Partition partition, Command command) throws IOException {
        long term = division.getInfo().getCurrentTerm();
        synchronized (planner) {
            if (!planner.isCurrent(term)) {
                rebuild(term, division.getRaftLog(), partition);
            }
            return command instanceof TxnMarker marker ? planner.plan(marker) : planner.plan((Append) command);
        }
    }

    /** The applied state, then every placement in the Raft log after it (this leader's own log: nothing is cut). */
    private void rebuild(long term, RaftLog raftLog, Partition partition) throws IOException {
        CommittedView view = partition.committedView();
        planner.reset(term, view.highWatermark(), view.producers(), view.openTransactions().keySet(),
                view.abortedTransactions(), partition.verifications());
        TermIndex last = raftLog.getLastEntryTermIndex();
        long lastIndex = last == null ? 0 : last.getIndex();
        for (long index = view.appliedRaftIndex() + 1; index <= lastIndex; index++) {
            LogEntryProto entry = raftLog.get(index);
            if (entry == null || !entry.hasStateMachineLogEntry()) {
                continue;
            }
            Command command = decode(entry.getStateMachineLogEntry());
            if (command instanceof AppendAt at) {
                planner.replay(at);
            } else if (command instanceof Append || command instanceof TxnMarker) {
                planner.invalidate();
                throw new PlacementNotReadyException(partition + ": an append of the old format at Raft index "
                        + index + " is not applied yet; placements resume once it is");
            }
        }
    }

    /** Under Ratis's append lock, in log order: refuses a placement that is not where the log is. */
    void onAppending(TransactionContext context) throws StateMachineException {
        if (commandOf(context, context.getStateMachineLogEntry()) instanceof AppendAt at && !planner.onAppending(at)) {
            planner.invalidate();
            throw new PlacementRefusedException("placement at offset " + at.baseOffset() + " is out of the Raft "
                    + "log's order; the append is refused and may be retried");
        }
    }

    /** The entry will not be appended (or its fate is unclear): the planner is rebuilt before the next placement. */
    void onCancelled(TransactionContext context) {
        StateMachineLogEntryProto entry = context.getStateMachineLogEntry();
        if (entry != null && commandOf(context, entry) instanceof AppendAt) {
            planner.invalidate();
        }
    }

    /** The command decoded when the transaction started (kept as its context), else decoded from the log data. */
    static Command commandOf(TransactionContext context, StateMachineLogEntryProto entry) {
        return context != null && context.getStateMachineContext() instanceof Command command ? command
                : decode(entry);
    }

    /** The entry's command from its log data, or null when it is not one (never thrown from Ratis's callbacks). */
    static Command decode(StateMachineLogEntryProto entry) {
        try {
            return CommandCodec.decodeCommand(entry.getLogData().asReadOnlyByteBufferList());
        } catch (CommandFormatException e) {
            return null;
        }
    }

    /** The state machine data as one buffer, without a copy when it is one already. */
    static ByteBuffer dataOf(LogEntryProto entry) {
        ByteString data = entry.getStateMachineLogEntry().getStateMachineEntry().getStateMachineData();
        List<ByteBuffer> buffers = data.asReadOnlyByteBufferList();
        return buffers.size() == 1 ? buffers.get(0) : data.asReadOnlyByteBuffer();
    }

    /** Whether a failed submit surely appended nothing because of the placement (so a retry is safe). */
    static boolean appendedNothing(Throwable failure) {
        return failure instanceof PlacementRefusedException || failure != null
                && failure.getCause() instanceof PlacementNotReadyException;
    }

    /** A placement found out of the Raft log's order as its entry was appended: the entry is not appended. */
    static final class PlacementRefusedException extends StateMachineException {
        private static final long serialVersionUID = 1L;

        PlacementRefusedException(String message) {
            super(message, false);
        }
    }

    /** Appends are not placed now (the state they would be placed against is not known yet); retriable. */
    static final class PlacementNotReadyException extends IOException {
        private static final long serialVersionUID = 1L;

        PlacementNotReadyException(String message) {
            super(message);
        }
    }
}
