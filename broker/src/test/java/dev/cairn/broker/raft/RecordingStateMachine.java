package dev.cairn.broker.raft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Test state machine: records every applied command and answers with the number applied so far. While
 * {@link #submitGate} is closed, every submit waits in {@code startTransaction} (it runs on the submitting thread,
 * under nothing of Cairn's): a group stuck on its way into the Raft log.
 */
final class RecordingStateMachine extends BaseStateMachine {
    final List<String> applied = new CopyOnWriteArrayList<>();
    final CountDownLatch submitGate = new CountDownLatch(0);
    volatile CountDownLatch gate = submitGate;
    final AtomicInteger waitingAtGate = new AtomicInteger();

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        waitingAtGate.incrementAndGet();
        try {
            if (!gate.await(60, TimeUnit.SECONDS)) {
                throw new IOException("test gate stayed closed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            waitingAtGate.decrementAndGet();
        }
        return super.startTransaction(request);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        var entry = trx.getLogEntry();
        applied.add(entry.getStateMachineLogEntry().getLogData().toStringUtf8());
        updateLastAppliedTermIndex(TermIndex.valueOf(entry));
        ByteBuffer reply = ByteBuffer.allocate(4).putInt(0, applied.size());
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
    }
}
