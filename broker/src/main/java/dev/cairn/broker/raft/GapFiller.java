package dev.cairn.broker.raft;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.PlacedBatchException;
import dev.cairn.broker.partition.Result;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refills a replica's log from the leader's copy. A machine that lost power can lose segment bytes it had not
 * flushed while its Raft log (fsynced by Ratis) keeps the entries that committed them; replaying those entries, the
 * replica finds their batches missing ({@link PlacedBatchException#missingFrom()}), copies the committed batches from
 * the leader and applies again, as a Kafka follower refetches after truncating to its high watermark. Runs on the
 * group's apply thread, which waits for the copy: bounded by {@link #ATTEMPTS_MAX} copies, each bounded by its query
 * timeout, one {@link #BACKOFF_MS} apart after a failure; then the gap stays and the partition goes offline here.
 */
final class GapFiller {
    private static final Logger LOG = LoggerFactory.getLogger(GapFiller.class);
    static final int ATTEMPTS_MAX = 60;
    static final long BACKOFF_MS = 1_000;
    /** Bytes of batches one copy from the leader carries at most (at least one whole batch). */
    static final int BYTES_MAX = 4 << 20;

    /** Copies of the leader's committed batches. */
    @FunctionalInterface
    interface LeaderCopy {
        /** The leader's committed batches from {@code fromOffset}, whole, about {@code maxBytes}; blocks, bounded. */
        ByteBuffer committedBatches(long fromOffset, int maxBytes) throws Exception;
    }

    private final LeaderCopy leaderCopy;
    private final Runnable onFilled;

    /** @param onFilled runs after each copy into the log (writes waiting for the gap may go on) */
    GapFiller(LeaderCopy leaderCopy, Runnable onFilled) {
        this.leaderCopy = leaderCopy;
        this.onFilled = onFilled;
    }

    /** {@link Partition#apply}, filling the gaps it reports from the leader's copy until it succeeds or gives up. */
    Result apply(Partition partition, LogEntryProto entry, Command command, boolean replayed) {
        for (int attempt = 1; ; attempt++) {
            try {
                return partition.apply(entry.getIndex(), (int) entry.getTerm(), command, replayed);
            } catch (PlacedBatchException gap) {
                if (gap.missingFrom() < 0 || attempt > ATTEMPTS_MAX) {
                    throw gap;
                }
                if (attempt == 1) {
                    LOG.warn("{}: {}; copying the committed batches from the leader", partition, gap.getMessage());
                }
                fill(partition, gap.missingFrom(), attempt);
            }
        }
    }

    private void fill(Partition partition, long fromOffset, int attempt) {
        ByteBuffer batches;
        try {
            batches = leaderCopy.committedBatches(fromOffset, BYTES_MAX);
        } catch (Exception e) {
            LOG.debug("{}: copy from the leader failed (attempt {}): {}", partition, attempt, e.toString());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(BACKOFF_MS));
            return;
        }
        partition.fill(fromOffset, batches);
        onFilled.run();
    }
}
