package dev.cairn.broker.partition;

import dev.cairn.broker.log.Log;
import dev.cairn.broker.partition.Command.AppendAt;
import java.nio.ByteBuffer;
import java.util.function.LongSupplier;

/**
 * A partition's write-once path ({@link Partition#placements}): batches the leader placed, written into the log as
 * their Raft entries are appended on this replica (any thread, in log order), beside the apply thread and under the
 * partition's write lock; gaps filled from the leader's copy; placed batches read back for followers.
 */
public final class PartitionPlacements {
    private final Object writeLock;
    private final Log log;
    private final PlacedBatches placed;
    private final LongSupplier highWatermark;

    PartitionPlacements(Object writeLock, Log log, PlacedBatches placed, LongSupplier highWatermark) {
        this.writeLock = writeLock;
        this.log = log;
        this.placed = placed;
        this.highWatermark = highWatermark;
    }

    /** Writes a batch the leader placed, as its Raft entry is appended on this replica. */
    public void place(AppendAt at, ByteBuffer batch, int leaderEpoch) {
        synchronized (writeLock) {
            log.claimWriter();
            placed.place(at, batch, leaderEpoch, highWatermark.getAsLong(), false);
        }
    }

    /**
     * As {@link #place}, when the log reaches the placement (it ends at or beyond its base offset); false, writing
     * nothing, when batches before it are still to come (entries that write their batch as they apply).
     */
    public boolean placeIfReached(AppendAt at, ByteBuffer batch, int leaderEpoch) {
        synchronized (writeLock) {
            if (log.logEndOffset() < at.baseOffset()) {
                return false;
            }
            log.claimWriter();
            placed.place(at, batch, leaderEpoch, highWatermark.getAsLong(), false);
            return true;
        }
    }

    /** Fills a gap in the committed log from {@code fromOffset} with the leader's batches (PlacedBatchException). */
    public void fill(long fromOffset, ByteBuffer batches) {
        synchronized (writeLock) {
            log.claimWriter();
            placed.fill(fromOffset, batches, highWatermark.getAsLong());
        }
    }

    /** A placed batch as the log holds it, for a follower whose entries left Raft's cache; any thread. */
    public ByteBuffer readPlaced(AppendAt at) {
        return placed.read(at);
    }
}
