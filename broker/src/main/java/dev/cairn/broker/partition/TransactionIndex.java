package dev.cairn.broker.partition;

import dev.cairn.broker.log.AbortedTransactions;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The transactions of one partition as its committed batches show them: the first offset of each producer's open
 * transaction (which bounds the last stable offset: read_committed readers stop before it) and the transactions that
 * were aborted (which read_committed fetches return, so clients skip their records). Kafka keeps the aborted ones in a
 * {@code .txnindex} file per segment; here they are in memory and in the partition's snapshot, and leave with the
 * segments that held them: every entry whose abort marker lies below the log start is dropped as the log start moves
 * ({@link #onLogStartMoved}: retention and DeleteRecords, in apply order; {@link #restore} to a snapshot), and, on
 * compacted topics, every entry whose aborted records compaction removed ({@link #onAbortedCleaned}: Kafka's cleaner
 * rewrites a segment's transaction index without them). The leader opens no transaction that could take them past
 * {@link #ABORTED_MAX} (TransactionVerifications). Compaction reads them in first-offset order
 * ({@link #beginningWithin}), fetches in marker order ({@link #abortedWithin}, {@link #readCommitted}). It also
 * holds the consumer offsets producers' transactions committed for this partition (TxnOffsetCommit), pending until
 * the producer's marker: a commit marker makes them the groups' committed offsets ({@link #drainCommittedOffsets}),
 * an abort marker drops them.
 *
 * <p>Derived state, rebuilt deterministically from the committed placements; written on the apply thread, read by
 * fetches on any thread (every method is synchronized).
 */
public final class TransactionIndex {
    private static final int SNAPSHOT_FORMAT_VERSION = 1;
    /** Open transactions a snapshot may hold: one per producer (ProducerStateTable's bound). */
    private static final int OPEN_MAX = ProducerStateTable.PRODUCERS_MAX;
    /**
     * Aborted transactions one partition holds at most (in memory, about 150 bytes each, and in its snapshot, 24): the
     * leader opens no new transaction here while those held plus those open reach it (each open one may still
     * abort). Kafka keeps them on disk per segment and has no such bound; here room comes back only as the log start
     * passes their markers, so a topic kept forever that aborts often stops taking new transactions on a partition
     * (POLICY_VIOLATION) after this many aborts.
     */
    public static final int ABORTED_MAX = 1_000_000;
    /**
     * Aborted transactions a snapshot may hold when decoding (an encoded count above it is corrupt); above
     * {@link #ABORTED_MAX} so that snapshots taken before it was enforced still load.
     */
    private static final int ABORTED_DECODE_MAX = 1 << 24;
    /** Groups whose offsets one producer's transaction may hold pending here; more are refused (POLICY_VIOLATION). */
    public static final int PENDING_GROUPS_PER_PRODUCER_MAX = 1_000;

    static {
        if ((long) ABORTED_MAX + OPEN_MAX > ABORTED_DECODE_MAX) {
            throw new ExceptionInInitializerError("ABORTED_MAX " + ABORTED_MAX + " plus OPEN_MAX " + OPEN_MAX
                    + " exceeds ABORTED_DECODE_MAX " + ABORTED_DECODE_MAX + ": a snapshot within them would not load");
        }
    }

    /** How often a read_committed read is tried while aborted transactions leave the index as it reads. */
    private static final int COMMITTED_READ_ATTEMPTS_MAX = 3;

    /** An aborted transaction: its producer, its first offset here, and the offset of its abort marker. */
    public record Aborted(long producerId, long firstOffset, long lastOffset) implements AbortedTransactions.Aborted {
    }

    /** What a read_committed fetch returns: batches read, and the aborted transactions among them. */
    public record CommittedRead(LogSlice slice, List<Aborted> aborted) {
    }

    private final Map<Long, Long> openByProducer = new HashMap<>();
    private final TreeMap<Long, Long> openByFirstOffset = new TreeMap<>();
    /** Keyed by the abort marker's offset, so fetches find those that end at or after their offset. */
    private final TreeMap<Long, Aborted> abortedByLastOffset = new TreeMap<>();
    /** The same, keyed by first offset (one batch, so one transaction, per offset), for compaction. */
    private final TreeMap<Long, Aborted> abortedByFirstOffset = new TreeMap<>();
    /** Bumped whenever aborted transactions are dropped, so that fetches notice they raced with it. */
    private volatile long droppedGeneration;
    /** Offsets committed by each producer's open transaction, by group, with the epoch that committed them. */
    private final Map<Long, PendingOffsets> pendingOffsets = new TreeMap<>();
    /** Offsets a commit marker just made effective, for the partition to store at that entry. */
    private final Map<String, CommittedOffset> committedNow = new TreeMap<>();

    /** One producer's pending offsets: the epoch whose transaction committed them, and the offsets by group. */
    record PendingOffsets(short epoch, Map<String, CommittedOffset> byGroup) {
    }

    /** Applies a TxnCommitOffset or a TxnEndOffsets (its result), or answers null for any other command. */
    public synchronized Result apply(Command command) {
        if (command instanceof Command.TxnEndOffsets end) {
            endPending(end.producerId(), end.producerEpoch(), end.commit());
            return Result.OFFSET_COMMITTED;
        }
        if (!(command instanceof Command.TxnCommitOffset commit)) {
            return null;
        }
        PendingOffsets pending = pendingOffsets.get(commit.producerId());
        if (pending != null && pending.epoch() > commit.producerEpoch()) {
            return new Result.Rejected(ErrorCode.INVALID_PRODUCER_EPOCH, "producer " + commit.producerId()
                    + " epoch " + commit.producerEpoch() + " is fenced by epoch " + pending.epoch());
        }
        if (pending == null || pending.epoch() < commit.producerEpoch()) {
            pending = new PendingOffsets(commit.producerEpoch(), new TreeMap<>());
            pendingOffsets.put(commit.producerId(), pending);
        }
        if (pending.byGroup().size() >= PENDING_GROUPS_PER_PRODUCER_MAX
                && !pending.byGroup().containsKey(commit.groupId())) {
            return new Result.Rejected(ErrorCode.POLICY_VIOLATION, "a transaction commits offsets of "
                    + PENDING_GROUPS_PER_PRODUCER_MAX + " groups per partition at most");
        }
        pending.byGroup().put(commit.groupId(), new CommittedOffset(commit.offset(), commit.metadata(),
                commit.commitTimeMs(), commit.leaderEpoch()));
        return Result.OFFSET_COMMITTED;
    }

    /**
     * Ends the pending offsets of a producer's transaction: effective if it commits, dropped if it aborts. An end from
     * an epoch older than the offsets' (a late retry) leaves a newer transaction's offsets alone.
     */
    private void endPending(long producerId, short epoch, boolean commit) {
        PendingOffsets pending = pendingOffsets.get(producerId);
        if (pending == null || pending.epoch() > epoch) {
            return;
        }
        pendingOffsets.remove(producerId);
        if (commit) {
            committedNow.putAll(pending.byGroup());
        }
    }

    /** The offsets the last applied commit marker made effective (then forgotten here), by group. */
    public synchronized Map<String, CommittedOffset> drainCommittedOffsets() {
        if (committedNow.isEmpty()) {
            return Map.of();
        }
        Map<String, CommittedOffset> drained = new TreeMap<>(committedNow);
        committedNow.clear();
        return drained;
    }

    /** Whether a producer's open transaction holds an offset of {@code groupId} for this partition. */
    public synchronized boolean hasPendingOffset(String groupId) {
        return pendingOffsets.values().stream().anyMatch(pending -> pending.byGroup().containsKey(groupId));
    }

    /** Takes in a committed placement: opens, continues or ends its producer's transaction. */
    public synchronized void onCommitted(AppendAt at) {
        switch (at.txn()) {
            case DATA -> {
                if (!openByProducer.containsKey(at.producerId())) {
                    openByProducer.put(at.producerId(), at.baseOffset());
                    openByFirstOffset.put(at.baseOffset(), at.producerId());
                }
            }
            case COMMIT, ABORT -> {
                endPending(at.producerId(), at.producerEpoch(), at.txn() == TxnRole.COMMIT);
                Long first = openByProducer.remove(at.producerId());
                if (first != null) {
                    openByFirstOffset.remove(first);
                    if (at.txn() == TxnRole.ABORT) {
                        putAborted(new Aborted(at.producerId(), first, at.baseOffset()));
                    }
                }
            }
            default -> {
            }
        }
    }

    /** Where read_committed readers stop: the first open transaction's first offset, or the high watermark. */
    public synchronized long lastStableOffset(long highWatermark) {
        return openByFirstOffset.isEmpty() ? highWatermark : Math.min(highWatermark, openByFirstOffset.firstKey());
    }

    /**
     * The aborted transactions a read_committed fetch of {@code [fromOffset, upToOffset)} must name: those whose
     * abort marker is at or after {@code fromOffset} and that began before {@code upToOffset}, in marker order.
     */
    public synchronized List<Aborted> abortedWithin(long fromOffset, long upToOffset) {
        List<Aborted> found = new ArrayList<>();
        for (Aborted aborted : abortedByLastOffset.tailMap(fromOffset, true).values()) {
            if (aborted.firstOffset() < upToOffset) {
                found.add(aborted);
            }
        }
        return found;
    }

    /**
     * A read_committed read: the batches {@code read} returns from {@code fetchOffset} and the aborted transactions
     * among them, consistent with each other. A compaction pass replaces segments and then drops the aborted
     * transactions it emptied (retention deletes segments, then drops those below the log start); batches read
     * before a pass with aborted transactions listed after it would show aborted records as committed. So the read is
     * retried when transactions were dropped meanwhile, {@value #COMMITTED_READ_ATTEMPTS_MAX} times at most; after
     * that it returns no batch (the client fetches again). Any thread.
     */
    public CommittedRead readCommitted(long fetchOffset, Supplier<LogSlice> read) {
        for (int attempt = 0; attempt < COMMITTED_READ_ATTEMPTS_MAX; attempt++) {
            long generation = droppedGeneration;
            LogSlice slice = read.get();
            List<Aborted> aborted = slice.isEmpty() ? List.of() : abortedWithin(fetchOffset, slice.nextOffset());
            if (generation == droppedGeneration) {
                return new CommittedRead(slice, aborted);
            }
        }
        return new CommittedRead(LogSlice.empty(fetchOffset), List.of());
    }

    /**
     * The aborted transactions that begin in {@code [fromOffset, toOffset)} and whose abort marker lies at or after
     * {@code endingFromOffset}, in first-offset order (what a compaction pass reads, segment by segment).
     */
    public synchronized List<Aborted> beginningWithin(long fromOffset, long toOffset, long endingFromOffset) {
        if (fromOffset >= toOffset) {
            return List.of();
        }
        List<Aborted> found = new ArrayList<>();
        for (Aborted aborted : abortedByFirstOffset.subMap(fromOffset, true, toOffset, false).values()) {
            if (aborted.lastOffset() >= endingFromOffset) {
                found.add(aborted);
            }
        }
        return found;
    }

    /** Whether the producer has a transaction open here. */
    public synchronized boolean isOpen(long producerId) {
        return openByProducer.containsKey(producerId);
    }

    /** Transactions open here. */
    public synchronized int openCount() {
        return openByProducer.size();
    }

    /** The open transactions' first offsets by producer (for tests and DescribeProducers). */
    public synchronized Map<Long, Long> openTransactions() {
        return Map.copyOf(openByProducer);
    }

    /**
     * Forgets aborted transactions whose marker left the log (below {@code logStartOffset}); open ones stay (their
     * marker is still to come). A read_committed fetch from the log start on names the same ones as before: those it
     * names end at or after its fetch offset. Returns how many were dropped.
     */
    public synchronized int onLogStartMoved(long logStartOffset) {
        return dropEndingBefore(logStartOffset);
    }

    /**
     * Forgets the aborted transactions whose abort marker lies below {@code offset}, where a compaction pass settled
     * every aborted transaction (LogCleaner's {@code transactionsCleanedUpTo}): it removed their records, so
     * read_committed readers have nothing to skip, and their markers stay until their delete horizon. Kafka's cleaner
     * does the same: the cleaned segment's transaction index keeps only the aborted transactions whose records it
     * still holds. Returns how many were dropped.
     */
    public synchronized int onAbortedCleaned(long offset) {
        return dropEndingBefore(offset);
    }

    private int dropEndingBefore(long offset) {
        Map<Long, Aborted> below = abortedByLastOffset.headMap(offset, false);
        int dropped = below.size();
        if (dropped > 0) {
            below.values().forEach(aborted -> abortedByFirstOffset.remove(aborted.firstOffset()));
            below.clear();
            droppedGeneration++;
        }
        return dropped;
    }

    private void putAborted(Aborted aborted) {
        abortedByLastOffset.put(aborted.lastOffset(), aborted);
        abortedByFirstOffset.put(aborted.firstOffset(), aborted);
    }

    /** The aborted transactions held (at most {@link #ABORTED_MAX} where the leader's placements enforce it). */
    public synchronized int abortedCount() {
        return abortedByLastOffset.size();
    }

    public synchronized void clear() {
        openByProducer.clear();
        openByFirstOffset.clear();
        abortedByLastOffset.clear();
        abortedByFirstOffset.clear();
        pendingOffsets.clear();
        committedNow.clear();
        droppedGeneration++;
    }

    /**
     * Snapshot layout: {@code version i32, openCount i32, openCount x (producerId i64, firstOffset i64),
     * abortedCount i32, abortedCount x (producerId i64, firstOffset i64, lastOffset i64)}, in offset order, then the
     * pending offsets as {@link PendingOffsetsCodec} lays them out.
     */
    public synchronized byte[] encode() {
        byte[] pending = PendingOffsetsCodec.encode(pendingOffsets);
        ByteBuffer out = ByteBuffer.allocate(4 + 4 + openByProducer.size() * 16 + 4 + abortedByLastOffset.size() * 24
                + pending.length);
        out.putInt(SNAPSHOT_FORMAT_VERSION).putInt(openByFirstOffset.size());
        openByFirstOffset.forEach((first, producer) -> out.putLong(producer).putLong(first));
        out.putInt(abortedByLastOffset.size());
        for (Aborted aborted : abortedByLastOffset.values()) {
            out.putLong(aborted.producerId()).putLong(aborted.firstOffset()).putLong(aborted.lastOffset());
        }
        return out.put(pending).array();
    }

    /** Replaces this index with one {@link #encode}d (null: an empty one); malformed bytes throw. */
    public synchronized void restore(byte[] encoded) {
        restore(encoded, 0);
    }

    /**
     * As {@link #restore(byte[])}, in a log now starting at {@code logStartOffset}: aborted transactions whose marker
     * lies below it are dropped, as {@link #onLogStartMoved} would have (the log may start after the snapshot's start
     * when retention ran after it was taken; the entries replayed then move it there again).
     */
    public synchronized void restore(byte[] encoded, long logStartOffset) {
        if (encoded == null) {
            clear();
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(encoded);
        int version = in.getInt();
        if (version != SNAPSHOT_FORMAT_VERSION) {
            throw new IllegalStateException("transaction index snapshot version " + version + " is not "
                    + SNAPSHOT_FORMAT_VERSION);
        }
        clear();
        int open = count(in, OPEN_MAX, "open");
        for (int i = 0; i < open; i++) {
            long producer = in.getLong();
            long first = in.getLong();
            openByProducer.put(producer, first);
            openByFirstOffset.put(first, producer);
        }
        int aborted = count(in, ABORTED_DECODE_MAX, "aborted");
        for (int i = 0; i < aborted; i++) {
            putAborted(new Aborted(in.getLong(), in.getLong(), in.getLong()));
        }
        pendingOffsets.putAll(PendingOffsetsCodec.decode(in));
        onLogStartMoved(logStartOffset);
    }

    private static int count(ByteBuffer in, int max, String what) {
        int count = in.getInt();
        if (count < 0 || count > max) {
            throw new IllegalStateException("transaction index snapshot holds " + count + " " + what
                    + " transactions, outside [0, " + max + "]");
        }
        return count;
    }

    /** The aborted transactions held, for tests. */
    synchronized NavigableMap<Long, Aborted> aborted() {
        return new TreeMap<>(abortedByLastOffset);
    }
}
