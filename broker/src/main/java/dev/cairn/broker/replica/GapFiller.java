package dev.cairn.broker.replica;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacedBatchException;
import dev.cairn.broker.partition.Result;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refills a replica's log from the leader's copy. A machine that lost power can lose segment bytes it had not
 * flushed while its Raft log (fsynced by Ratis) keeps the entries that committed them; replaying those entries, the
 * replica finds their batches missing ({@link PlacedBatchException#missingFrom()}), copies the committed batches from
 * the leader and applies again, as a Kafka follower refetches after truncating to its high watermark.
 *
 * <p>Runs on the group's apply thread, which waits for the copy. Each copy is bounded by its query timeout; a copy
 * that fails, or brings nothing (the leader has not committed that far yet), is followed by a pause of
 * {@link #BACKOFF_MS}. The filler gives up once {@link #STALL_MAX_MS} pass without the log growing: the gap stays
 * and the partition goes offline on this replica.
 */
public final class GapFiller {
    private static final Logger LOG = LoggerFactory.getLogger(GapFiller.class);
    /** Pause after a copy that did not grow the log. */
    public static final long BACKOFF_MS = 1_000;
    /** Time without any copied byte after which the gap is final on this replica. */
    public static final long STALL_MAX_MS = 120_000;
    /** Bytes of batches one copy from the leader carries at most (at least one whole batch). */
    public static final int BYTES_MAX = 4 << 20;

    /** Copies of the leader's committed batches. */
    @FunctionalInterface
    public interface LeaderCopy {
        /** The leader's committed batches from {@code fromOffset}, whole, about {@code maxBytes}; blocks, bounded. */
        ByteBuffer committedBatches(long fromOffset, int maxBytes) throws Exception;
    }

    /** How the filler waits and reads time; tests replace it. */
    public interface Pacing {
        Pacing REAL = new Pacing() {
            @Override
            public long nowMs() {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
            }

            @Override
            public void pause(long ms) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
            }
        };

        long nowMs();

        void pause(long ms);
    }

    private final LeaderCopy leaderCopy;
    private final Runnable onFilled;
    private final BooleanSupplier abandoned;
    private final Pacing pacing;

    /**
     * @param onFilled runs after each copy into the log (writes waiting for the gap may go on)
     * @param abandoned true once the partition went offline on this replica meanwhile: the filler stops
     */
    public GapFiller(LeaderCopy leaderCopy, Runnable onFilled, BooleanSupplier abandoned) {
        this(leaderCopy, onFilled, abandoned, Pacing.REAL);
    }

    public GapFiller(LeaderCopy leaderCopy, Runnable onFilled, BooleanSupplier abandoned, Pacing pacing) {
        this.leaderCopy = leaderCopy;
        this.onFilled = onFilled;
        this.abandoned = abandoned;
        this.pacing = pacing;
    }

    /** {@link Partition#apply}, filling the gaps it reports from the leader's copy until it succeeds or gives up. */
    public Result apply(Partition partition, long raftIndex, int term, Command command, boolean replayed) {
        long lastGrowthMs = -1;
        for (int attempt = 1; ; attempt++) {
            try {
                return partition.apply(raftIndex, term, command, replayed);
            } catch (PlacedBatchException gap) {
                if (gap.missingFrom() < 0 || abandoned.getAsBoolean()) {
                    throw gap;
                }
                long now = pacing.nowMs();
                if (lastGrowthMs < 0) {
                    lastGrowthMs = now;
                    LOG.warn("{}: {}; copying the committed batches from the leader", partition, gap.getMessage());
                } else if (now - lastGrowthMs >= STALL_MAX_MS) {
                    LOG.error("{}: no committed batch from offset {} could be copied from the leader in {} ms "
                            + "({} attempts); giving up", partition, gap.missingFrom(), STALL_MAX_MS, attempt - 1);
                    throw gap;
                }
                long endBefore = partition.logEndOffset();
                fill(partition, gap.missingFrom(), attempt);
                if (partition.logEndOffset() > endBefore) {
                    lastGrowthMs = pacing.nowMs();
                } else {
                    pacing.pause(BACKOFF_MS);
                }
            }
        }
    }

    private void fill(Partition partition, long fromOffset, int attempt) {
        ByteBuffer batches;
        try {
            batches = leaderCopy.committedBatches(fromOffset, BYTES_MAX);
        } catch (Exception e) {
            LOG.debug("{}: copy from the leader failed (attempt {}): {}", partition, attempt, e.toString());
            return;
        }
        partition.placements().fill(fromOffset, batches);
        onFilled.run();
    }
}
