package dev.cairn.broker.partition;

import dev.cairn.broker.partition.Command.Append;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.broker.partition.Command.AppendDuplicate;
import dev.cairn.broker.partition.Command.AppendRefused;
import dev.cairn.broker.partition.Command.TxnMarker;
import dev.cairn.broker.partition.SequenceCheck.Duplicate;
import dev.cairn.broker.partition.SequenceCheck.Reject;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.ControlBatch;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.wire.DecodeException;

/**
 * The leader's view of where the next batch goes (the write-once path, docs/write-path.md): the committed state plus
 * every batch placed since, so each append is placed (offsets, idempotence) before its Raft entry exists, and every
 * replica writes it there. Built for one leader term from the applied state and the entries after it
 * ({@link #reset}, {@link #replay}); placements are made in the order entries are appended ({@link #plan}, then
 * {@link #onAppending} checks that order). Anything unexpected {@link #invalidate}s it, and the next append
 * rebuilds it. Thread-safe (plans are made on Raft's append path, resets on the same one).
 */
public final class AppendPlanner {
    private final RecordBatch header = new RecordBatch();
    private ProducerStateTable producers = new ProducerStateTable();
    private long term = -1;
    /** Where the next planned batch goes. */
    private long nextOffset;
    /** Where the next batch entering the Raft log must go: behind {@link #nextOffset} by the plans in flight. */
    private long appendedEnd;
    /** KIP-890's admission of batches that open a transaction; null when not checked (tests, replicas' replay). */
    private TransactionVerifications verifications;
    /** The term the verifications were last reset for (an invalidated view forgets its term, this does not). */
    private long verifiedTerm = -1;

    /** Whether the view is built for {@code currentTerm} and still trusted. */
    public synchronized boolean isCurrent(long currentTerm) {
        return term == currentTerm;
    }

    /** Starts a view for {@code currentTerm} from the applied state; the entries after it follow by replay. */
    public synchronized void reset(long currentTerm, long highWatermark, ProducerStateTable committedProducers) {
        term = currentTerm;
        nextOffset = highWatermark;
        appendedEnd = highWatermark;
        producers = committedProducers;
        verifications = null;
    }

    /**
     * As {@link #reset(long, long, ProducerStateTable)}, and a transactional batch that opens a transaction is placed
     * only when {@code checked} admits it and there is room for another ({@link TransactionIndex#ABORTED_MAX});
     * {@code openProducers}: those with a transaction open in the applied state, which holds
     * {@code abortedTransactions}.
     */
    public synchronized void reset(long currentTerm, long highWatermark, ProducerStateTable committedProducers,
            java.util.Set<Long> openProducers, int abortedTransactions, TransactionVerifications checked) {
        reset(currentTerm, highWatermark, committedProducers);
        verifications = checked;
        checked.reset(openProducers, abortedTransactions, currentTerm == verifiedTerm);
        verifiedTerm = currentTerm;
    }

    /** Takes in a placement already in the Raft log, after the applied state the view was reset to. */
    public synchronized void replay(AppendAt at) {
        record(at);
        appendedEnd = nextOffset;
    }

    /** Drops the view: the next append rebuilds it. */
    public synchronized void invalidate() {
        term = -1;
    }

    /** Places one append: the entry to replicate instead of it. */
    public synchronized Command plan(Append append) {
        Command placement = decide(append, producers, nextOffset, header);
        if (placement instanceof AppendAt at && at.txn() == TxnRole.DATA && verifications != null
                && !verifications.isOpen(at.producerId()) && !verifications.hasRoomToOpen()) {
            // Room comes back as the log start passes aborted transactions (retention, DeleteRecords).
            return new AppendRefused(ErrorCode.POLICY_VIOLATION, "partition holds " + TransactionIndex.ABORTED_MAX
                    + " aborted transactions, open ones included, until its log start passes some; a transactional "
                    + "batch of producer " + at.producerId() + " may not open another");
        }
        if (placement instanceof AppendAt at && at.txn() == TxnRole.DATA && verifications != null
                && !verifications.admit(at.producerId(), at.producerEpoch(), at.firstSequence())) {
            return new AppendRefused(ErrorCode.NOT_ENOUGH_REPLICAS, "a transactional batch of producer "
                    + at.producerId() + " would open a transaction that was not verified with its coordinator here, "
                    + "or a marker of the producer came first; retried, it is verified anew (KIP-890)");
        }
        if (placement instanceof AppendAt at) {
            record(at);
        }
        return placement;
    }

    /**
     * Places a transaction marker: an {@link AppendAt} of the control batch {@link #markerBatch} builds, or an
     * {@link AppendRefused} when the marker's epoch is fenced.
     */
    public synchronized Command plan(TxnMarker marker) {
        Command placement = decide(marker, producers, nextOffset);
        if (placement instanceof AppendAt at) {
            record(at);
        }
        return placement;
    }

    /** The entry placed at {@code at} is entering the Raft log: false when that is not where the log is. */
    public synchronized boolean onAppending(AppendAt at) {
        if (at.baseOffset() != appendedEnd) {
            return false;
        }
        appendedEnd = at.lastOffset() + 1;
        return true;
    }

    private void record(AppendAt at) {
        recordProducer(producers, at);
        nextOffset = at.lastOffset() + 1;
        if (verifications != null) {
            verifications.onPlaced(at);
        }
    }

    /** What a placed batch changes in its producer's state: a batch of its sequence, or a marker's epoch. */
    static void recordProducer(ProducerStateTable producers, AppendAt at) {
        if (at.txn().isMarker()) {
            producers.onMarker(at.producerId(), at.producerEpoch());
        } else if (at.producerId() >= 0) {
            producers.onAppended(at.producerId(), at.producerEpoch(), new ProducerBatch(at.firstSequence(),
                    at.lastSequence(), at.baseOffset(), at.lastOffset(), at.maxTimestamp()));
        }
    }

    /** The control batch of {@code marker}: deterministic, so every replica that builds it holds the same bytes. */
    public static java.nio.ByteBuffer markerBatch(TxnMarker marker) {
        return ControlBatch.marker(marker.producerId(), marker.producerEpoch(), marker.commit(),
                marker.coordinatorEpoch(), marker.appendTimeMs());
    }

    /** Where {@code marker} goes in a log ending at {@code nextOffset}: see {@link #plan(TxnMarker)}. */
    static Command decide(TxnMarker marker, ProducerStateTable producers, long nextOffset) {
        if (producers.checkMarker(marker.producerId(), marker.producerEpoch()) instanceof Reject reject) {
            return new AppendRefused(reject.error(), reject.reason());
        }
        RecordBatch batch = RecordBatch.of(markerBatch(marker));
        return new AppendAt(nextOffset, marker.appendTimeMs(), batch.sizeInBytes(), (int) batch.checksum(), 0,
                marker.producerId(), marker.producerEpoch(), RecordBatchDescriptor.NO_SEQUENCE,
                RecordBatchDescriptor.NO_SEQUENCE, batch.maxTimestamp(), marker.commit() ? TxnRole.COMMIT
                : TxnRole.ABORT);
    }

    /**
     * Where {@code append} goes in a log ending at {@code nextOffset} with producer state {@code producers}: an
     * {@link AppendAt}, or, for an idempotent retry, an {@link AppendDuplicate} naming the original's offsets, or an
     * {@link AppendRefused} (sequence and epoch errors, and a batch that is not exactly one v2 batch).
     */
    /** Whether the command carries its batch in the Raft log, to be placed as it applies ({@link #decideUnplaced}). */
    static boolean carriesItsBatch(Command command) {
        return command instanceof Append || command instanceof Command.AppendChecked || command instanceof TxnMarker;
    }

    /**
     * The placement of a command that carries its batch in the Raft log (an {@link Append}, a
     * {@link Command.AppendChecked} or a {@link TxnMarker}), decided as it applies in the entry of term
     * {@code entryTerm}.
     */
    static Command decideUnplaced(Command command, long entryTerm, ProducerStateTable producers, long nextOffset,
            RecordBatch header, TransactionIndex transactions) {
        if (command instanceof Command.AppendChecked checked) {
            return decide(checked, entryTerm, producers, nextOffset, header, transactions);
        }
        if (command instanceof Append append) {
            return decide(append, producers, nextOffset, header);
        }
        return decide((TxnMarker) command, producers, nextOffset);
    }

    /** The batch {@link #decideUnplaced}'s command writes: the appended one, or the marker's control batch. */
    static java.nio.ByteBuffer unplacedBatch(Command command) {
        if (command instanceof Command.AppendChecked checked) {
            return checked.append().batch();
        }
        if (command instanceof Append append) {
            return append.batch();
        }
        return markerBatch((TxnMarker) command);
    }

    /**
     * Places a checked append as it applies (KIP-890 on the engine path): as {@link #decide(Append,
     * ProducerStateTable, long, RecordBatch)}, and a transactional batch that would open a transaction here is placed
     * only when it was verified in its own entry's term ({@code entryTerm}) and there is room for another transaction
     * ({@link TransactionIndex#ABORTED_MAX}). Deterministic: every replica decides alike.
     */
    static Command decide(Command.AppendChecked checked, long entryTerm, ProducerStateTable producers,
            long nextOffset, RecordBatch header, TransactionIndex transactions) {
        Command placement = decide(checked.append(), producers, nextOffset, header);
        if (!(placement instanceof AppendAt at) || at.txn() != TxnRole.DATA || transactions.isOpen(at.producerId())) {
            return placement;
        }
        if (checked.verifiedInTerm() != entryTerm) {
            return new AppendRefused(ErrorCode.NOT_ENOUGH_REPLICAS, "a transactional batch of producer "
                    + at.producerId() + " would open a transaction without a verification with its coordinator in "
                    + "this leader's term, or a marker of the producer came first; retried, it is verified anew "
                    + "(KIP-890)");
        }
        if ((long) transactions.openCount() + transactions.abortedCount() >= TransactionIndex.ABORTED_MAX) {
            return new AppendRefused(ErrorCode.POLICY_VIOLATION, "partition holds " + TransactionIndex.ABORTED_MAX
                    + " aborted transactions, open ones included, until its log start passes some; a transactional "
                    + "batch of producer " + at.producerId() + " may not open another");
        }
        return placement;
    }

    static Command decide(Append append, ProducerStateTable producers, long nextOffset, RecordBatch header) {
        RecordBatch batch;
        try {
            batch = header.wrap(append.batch(), append.batch().position());
        } catch (DecodeException e) {
            return new AppendRefused(ErrorCode.CORRUPT_MESSAGE, "replicated batch unreadable: " + e.getMessage());
        }
        if (batch.sizeInBytes() != append.batch().remaining() || batch.magic() != RecordBatchDescriptor.MAGIC_V2) {
            return new AppendRefused(ErrorCode.CORRUPT_MESSAGE, "replicated entry is not exactly one v2 batch");
        }
        if (batch.producerId() >= 0) {
            SequenceCheck check = producers.check(batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                    batch.lastSequence());
            if (check instanceof Duplicate duplicate) {
                return new AppendDuplicate(duplicate.original().baseOffset(), duplicate.original().lastOffset());
            }
            if (check instanceof Reject reject) {
                return new AppendRefused(reject.error(), reject.reason());
            }
        }
        if (batch.isControl()) {
            return new AppendRefused(ErrorCode.INVALID_RECORD, "a control batch is written only as a marker");
        }
        if (batch.isTransactional() && batch.producerId() < 0) {
            return new AppendRefused(ErrorCode.INVALID_RECORD, "a transactional batch without a producer id");
        }
        return new AppendAt(nextOffset, append.appendTimeMs(), batch.sizeInBytes(), (int) batch.checksum(),
                batch.lastOffsetDelta(), batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.lastSequence(), batch.maxTimestamp(), batch.isTransactional() ? TxnRole.DATA : TxnRole.NONE);
    }
}
