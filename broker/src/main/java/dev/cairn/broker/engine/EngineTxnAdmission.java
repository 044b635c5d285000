package dev.cairn.broker.engine;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.TransactionVerifications;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.raft.runtime.GroupStatus;
import dev.cairn.raft.runtime.RaftEngine;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * KIP-890's verification on the engine path (docs/transactions.md), where a batch's offset is decided as its entry
 * applies, not by the leader before replication. The produce path registers a transactional batch with the
 * partition's {@link TransactionVerifications} before it asks the coordinator (as on the Ratis path); here the
 * leader proposes it as a {@link Command.AppendChecked} stamped with the term in which that registration held, and
 * a marker voids its producer's registrations as it is proposed. Both happen under the verifications' lock, which is
 * held until the proposal is in the engine's queue, so they reach the Raft log in the order they passed here.
 *
 * <p>Applying, a batch that would open a transaction is placed only when its stamp is its own entry's term: then
 * this replica led from the registration until the entry, and every marker of that term was proposed here, after
 * (voiding the registration) or before it (so the coordinator's answer came after that marker). A stale term read
 * here only stamps a lower term: the batch is refused, retried and verified anew, never wrongly admitted.
 */
final class EngineTxnAdmission {
    private EngineTxnAdmission() {
    }

    /** Proposes {@code command} to {@code hosted}'s group: a checked append, a marker, or anything else as it is. */
    static CompletableFuture<Object> propose(RaftEngine engine, EngineGroups.Hosted hosted, Command command) {
        if (command instanceof Command.Append append && isTransactionalData(append.batch())) {
            ByteBuffer batch = append.batch();
            int start = batch.position();
            TransactionVerifications verifications = hosted.machine().partition().verifications();
            synchronized (verifications) {
                long term = verifications.admitInTerm(termOf(engine, hosted.group()),
                        batch.getLong(start + RecordBatchDescriptor.PRODUCER_ID_OFFSET),
                        batch.getShort(start + RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET),
                        batch.getInt(start + RecordBatchDescriptor.BASE_SEQUENCE_OFFSET));
                return EngineProposals.propose(engine, hosted.group(), new Command.AppendChecked(append, term));
            }
        }
        if (command instanceof Command.TxnMarker marker) {
            TransactionVerifications verifications = hosted.machine().partition().verifications();
            synchronized (verifications) {
                verifications.cancelInTerm(termOf(engine, hosted.group()), marker.producerId());
                return EngineProposals.propose(engine, hosted.group(), command);
            }
        }
        return EngineProposals.propose(engine, hosted.group(), command);
    }

    /** Whether the batch is transactional data (a header that cannot be read is left to the apply's checks). */
    private static boolean isTransactionalData(ByteBuffer batch) {
        if (batch.remaining() < RecordBatchDescriptor.HEADER_BYTES) {
            return false;
        }
        short attributes = batch.getShort(batch.position() + RecordBatchDescriptor.ATTRIBUTES_OFFSET);
        return (attributes & RecordBatchDescriptor.TRANSACTIONAL_MASK) != 0
                && (attributes & RecordBatchDescriptor.CONTROL_MASK) == 0;
    }

    /** The group's term as its loop last published it (possibly behind: see the class comment), -1 when unknown. */
    private static long termOf(RaftEngine engine, int group) {
        GroupStatus status = engine.status(group);
        return status == null ? -1 : status.term();
    }
}
