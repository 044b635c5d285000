package dev.cairn.broker.raft;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/** Test state machine: records every applied command and answers with the number applied so far. */
final class RecordingStateMachine extends BaseStateMachine {
    final List<String> applied = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        var entry = trx.getLogEntry();
        applied.add(entry.getStateMachineLogEntry().getLogData().toStringUtf8());
        updateLastAppliedTermIndex(TermIndex.valueOf(entry));
        ByteBuffer reply = ByteBuffer.allocate(4).putInt(0, applied.size());
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
    }
}
