package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.replica.GapFiller;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import dev.cairn.broker.snapshot.SnapshotRestore;
import dev.cairn.broker.snapshot.SnapshotStream;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.raft.Entry;
import dev.cairn.raft.SnapshotMeta;
import dev.cairn.raft.runtime.GroupStateMachine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's group on the engine: committed entries (commands in {@link CommandCodec}'s format, each batch
 * inside its entry) apply to the partition's {@link Partition}, and the {@link Result} is the proposal's value on the
 * leader, handed over without encoding.
 *
 * <p>It never throws from {@link #apply} into the engine, which stops every group of the broker on a machine's
 * exception (fail-stop): a command that cannot be read is answered CORRUPT_MESSAGE on every replica alike; a storage
 * failure takes this partition offline here (KAFKA_STORAGE_ERROR to its clients, later entries skipped) until the
 * broker restarts.
 *
 * <p>Snapshots ({@link PartitionSnapshots}, the layout the Ratis path uses): {@link #snapshotNow} captures the
 * partition at its applied index and hands the index to the engine, which then drops its entries up to it (they
 * are in the heap and the shared log until then). A follower behind that point is sent the snapshot as a
 * {@link SnapshotStream} and rebuilds its log from the leader's segment files ({@link #finishRestore}). Applying and
 * snapshotting hold this machine's lock, so a snapshot is exactly the state at its index.
 */
final class EnginePartitionMachine implements GroupStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePartitionMachine.class);
    /** Snapshots kept on disk: the one the engine was last told of, and the one before it (a transfer may use it). */
    private static final int SNAPSHOTS_KEPT = 2;

    private final TopicPartition tp;
    private final Supplier<Partition> opener;
    private final Path logDirectory;
    private final PartitionSnapshots snapshots;
    private final Runnable onAppended;
    private final LongFunction<CompletableFuture<?>> compact;
    private final EnginePlacements placements;
    /** Copies committed batches this replica lost (a machine crash) from another replica; null until set. */
    private volatile GapFiller gapFiller;
    private volatile Partition partition;
    private volatile StorageException offline;
    /** The snapshot the engine was told of last (it may ask for its bytes), or null. */
    private volatile PartitionSnapshots.Stored kept;
    private SnapshotRestore restore;
    private long lastAppliedTerm;
    private volatile long bytesSinceSnapshot;
    private volatile long entriesSinceSnapshot;
    private volatile long firstUncompactedNanos;
    private volatile int snapshotsInstalled;
    /** The index the engine last compacted this group to, once it did. */
    private volatile long compactedTo;
    /** Set when a snapshot should come at the next check whatever the thresholds (retention deleted segments). */
    private volatile boolean snapshotDue;
    /** Whether snapshots older than {@link #kept} may still be on disk. */
    private boolean olderSnapshotsHeld;

    /**
     * Opens the partition as its last snapshot left it ({@code opener} opens the log), finishing an install a crash
     * interrupted.
     *
     * @param compact tells the engine that entries up to an index are in a snapshot; completes once it dropped them
     */
    EnginePartitionMachine(TopicPartition tp, Supplier<Partition> opener, Path logDirectory,
            PartitionSnapshots snapshots, Runnable onAppended, LongFunction<CompletableFuture<?>> compact)
            throws IOException {
        this.tp = tp;
        this.opener = opener;
        this.logDirectory = logDirectory;
        this.snapshots = snapshots;
        this.onAppended = onAppended;
        this.compact = compact;
        this.placements = new EnginePlacements(tp, () -> partition);
        PartitionSnapshots.Stored latest = snapshots.latest();
        if (latest != null && !latest.applied()) {
            install(latest, false);
        } else {
            partition = opener.get();
            if (latest == null) {
                partition.restoreEmpty();
            } else {
                partition.restore(latest.index(), latest.state());
                lastAppliedTerm = latest.term();
                kept = latest;
            }
        }
    }

    Partition partition() {
        return partition;
    }

    /**
     * Where this replica copies committed batches from when it finds them missing as it applies (its segment lost
     * bytes it had not flushed, as a machine crash leaves it): it then waits on the apply thread for the copy, as
     * a Kafka follower refetches after truncating (GapFiller's bounds).
     */
    void copyGapsFrom(GapFiller.LeaderCopy copy) {
        gapFiller = new GapFiller(copy, () -> { }, () -> offline != null);
    }

    /** The storage failure that took this partition offline here, or null while it is healthy. */
    StorageException offlineCause() {
        return offline;
    }

    /** Appends this replica placed as leader (the write-once path). */
    long placements() {
        return placements.placements();
    }

    int snapshotsInstalled() {
        return snapshotsInstalled;
    }

    /** Bytes of entries applied since the last snapshot: what the engine holds for this group in heap and log. */
    long uncompactedBytes() {
        return bytesSinceSnapshot;
    }

    long uncompactedEntries() {
        return entriesSinceSnapshot;
    }

    /** Whether a snapshot is due now whatever the thresholds (retention deleted segments that snapshots link). */
    boolean snapshotDue() {
        return snapshotDue;
    }

    /** When the oldest entry not in a snapshot was applied ({@link System#nanoTime}), meaningful when there is one. */
    long firstUncompactedNanos() {
        return firstUncompactedNanos;
    }

    @Override
    public long appliedIndex() {
        return partition.appliedRaftIndex();
    }

    @Override
    public synchronized Object apply(Entry entry) {
        Partition current = partition;
        if (entry.dataLength() == 0 || entry.raftIndex() <= current.appliedRaftIndex()) {
            return null;   // a new leader's no-op, or an entry this replica held before the engine replayed it
        }
        if (offline != null) {
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + " is offline on this broker: "
                    + offline.getMessage());
        }
        if (entriesSinceSnapshot == 0) {
            firstUncompactedNanos = System.nanoTime();
        }
        bytesSinceSnapshot += entry.dataLength();
        entriesSinceSnapshot++;
        Result result;
        try {
            current.claimWriter();
            Command command = CommandCodec.decodeCommand(ByteBuffer.wrap(entry.head()));
            if (command instanceof Command.AppendAt at) {
                EnginePlacements.placeAtApply(current, entry, at);
            }
            // A held tail: the entry came back from the engine's log after a restart; its batch is checked by CRC.
            GapFiller filler = gapFiller;
            result = filler == null ? current.apply(entry.raftIndex(), (int) entry.term(), command, entry.tailHeld())
                    : filler.apply(current, entry.raftIndex(), (int) entry.term(), command, entry.tailHeld());
            lastAppliedTerm = entry.term();
        } catch (CommandFormatException e) {
            LOG.error("{}: unreadable command at raft index {}: {}", tp, entry.raftIndex(), e.getMessage());
            return new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, e.getMessage());
        } catch (RuntimeException e) {
            StorageException failure = e instanceof StorageException storage ? storage
                    : new StorageException("applying raft index " + entry.raftIndex() + " failed: " + e, e);
            offline = failure;
            LOG.error("{}: storage failure at raft index {}; the partition is offline here until restart", tp,
                    entry.raftIndex(), failure);
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + ": " + failure.getMessage());
        }
        if (result instanceof Result.Appended appended && !appended.duplicate()) {
            notifyAppended();
        } else if (result instanceof Result.Retained retained && retained.segmentsDeleted() > 0) {
            // Snapshots hold hard links to the deleted segments: snapshot again now to free their space.
            snapshotDue = true;
        }
        return result;
    }

    // ---------------------------------------------------------------- the write-once path (EnginePlacements)

    @Override
    public boolean holdsTails() {
        return true;
    }

    @Override
    public Proposal onPropose(LeaderLog log, byte[] head, ByteBuffer tail) {
        return placements.onPropose(log, head, tail);
    }

    @Override
    public void onProposeDropped() {
        placements.onProposeDropped();
    }

    @Override
    public BitSet onAppend(List<Entry> entries) {
        if (offline != null) {
            return null;
        }
        try {
            return placements.place(entries);
        } catch (RuntimeException e) {
            goOffline(e, "placing the batches of raft entries from " + entries.get(0).raftIndex());
            return null;
        }
    }

    @Override
    public ByteBuffer readTail(Entry entry) {
        try {
            return placements.readTail(entry);
        } catch (RuntimeException e) {
            // Gone (compacted, or retention passed it): a snapshot lets the engine send that instead.
            LOG.info("{}: the batch of raft entry {} cannot be read back ({}); a snapshot will replace it", tp,
                    entry.raftIndex(), e.getMessage());
            snapshotDue = true;
            return null;
        }
    }

    private void goOffline(RuntimeException e, String what) {
        StorageException failure = e instanceof StorageException storage ? storage
                : new StorageException(what + " failed: " + e, e);
        offline = failure;
        LOG.error("{}: storage failure {}; the partition is offline here until restart", tp, what, failure);
    }

    /** Tells the waiting fetches; what that throws is theirs, never the engine's (which would stop the broker). */
    private void notifyAppended() {
        try {
            onAppended.run();
        } catch (RuntimeException e) {
            LOG.warn("{}: waking the fetches waiting for new data failed", tp, e);
        }
    }

    /**
     * Takes a snapshot at the applied index when anything was applied since the last one, and tells the engine. A
     * failure leaves the entries with the engine (to be tried again later); it never takes the partition offline.
     */
    void snapshotNow() {
        long index;
        synchronized (this) {
            if (entriesSinceSnapshot == 0 || offline != null) {
                return;
            }
            Partition current = partition;
            index = current.appliedRaftIndex();
            try {
                current.claimWriter();
                kept = snapshots.write(lastAppliedTerm, index, current.snapshot(), logDirectory);
                snapshots.cleanup(SNAPSHOTS_KEPT);
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: snapshot at raft index {} failed; the engine keeps its entries for now", tp, index, e);
                return;
            }
            bytesSinceSnapshot = 0;
            entriesSinceSnapshot = 0;
            snapshotDue = false;
            olderSnapshotsHeld = true;
        }
        compact.apply(index).thenRun(() -> compactedTo = index);
    }

    /**
     * Once the engine compacted to the kept snapshot (it will never ask for an older one again), removes the older
     * ones: they hold hard links to segments retention may have deleted, whose space comes back only then.
     */
    synchronized void releaseOlderSnapshots() {
        PartitionSnapshots.Stored current = kept;
        if (!olderSnapshotsHeld || current == null || compactedTo < current.index()) {
            return;
        }
        try {
            snapshots.cleanup(1);
            olderSnapshotsHeld = false;
        } catch (IOException e) {
            LOG.warn("{}: removing snapshots older than raft index {} failed; trying again later", tp,
                    current.index(), e);
        }
    }

    // ---------------------------------------------------------------- snapshots sent to and received from others

    @Override
    public SnapshotPiece readSnapshot(SnapshotMeta snapshot, long offset, int maxBytes) {
        PartitionSnapshots.Stored stored = kept;
        if (stored == null || stored.index() != snapshot.raftIndex() || stored.term() != snapshot.term()) {
            return null;
        }
        try {
            byte[] data = SnapshotStream.read(stored, offset, maxBytes);
            return new SnapshotPiece(data, offset + data.length >= SnapshotStream.totalBytes(stored));
        } catch (NoSuchFileException e) {
            return null;   // cleaned up behind a later snapshot: the core names the later one
        } catch (IOException e) {
            throw new UncheckedIOException(tp + ": reading snapshot " + stored.path() + " failed", e);
        }
    }

    @Override
    public synchronized void beginRestore(SnapshotMeta snapshot) {
        try {
            if (restore != null) {
                restore.abort();
            }
            restore = snapshots.beginRestore(snapshot.term(), snapshot.raftIndex());
        } catch (IOException e) {
            throw new UncheckedIOException(tp + ": starting to receive snapshot " + snapshot + " failed", e);
        }
    }

    @Override
    public synchronized void writeRestore(SnapshotMeta snapshot, long offset, byte[] data) {
        try {
            restore.write(offset, data);
        } catch (IOException e) {
            throw new UncheckedIOException(tp + ": writing snapshot " + snapshot + " failed", e);
        }
    }

    @Override
    public synchronized void finishRestore(SnapshotMeta snapshot) {
        try {
            PartitionSnapshots.Stored received = restore.finish();
            restore = null;
            install(received, true);
        } catch (IOException e) {
            throw new UncheckedIOException(tp + ": installing snapshot " + snapshot + " failed", e);
        }
    }

    /**
     * Rebuilds this replica from a snapshot received from the leader (or one whose install a crash interrupted): the
     * log's files are replaced by the snapshot's segments, then producer state and committed offsets by its manifest.
     */
    private void install(PartitionSnapshots.Stored snapshot, boolean received) throws IOException {
        Partition previous = partition;
        if (previous != null) {
            previous.close();
        }
        snapshots.linkSegmentsInto(snapshot, logDirectory);
        Partition installed = opener.get();
        installed.claimWriter();
        installed.restoreInstalled(snapshot.index(), snapshot.state());
        kept = snapshots.markApplied(snapshot);
        snapshots.cleanup(SNAPSHOTS_KEPT);
        if (received) {
            snapshotsInstalled++;   // before the partition is published: whoever sees it sees the count
        }
        partition = installed;
        offline = null;
        lastAppliedTerm = snapshot.term();
        bytesSinceSnapshot = 0;
        entriesSinceSnapshot = 0;
        LOG.info("{}: installed the leader's snapshot at raft index {} (log offsets {}..{}, {} segments)", tp,
                snapshot.index(), snapshot.state().logStartOffset(), snapshot.state().logEndOffset(),
                snapshot.state().segments().size());
    }
}
