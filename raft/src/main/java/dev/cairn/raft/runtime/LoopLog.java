package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.SnapshotMeta;
import dev.cairn.raft.storage.RaftWal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop's {@link RaftWal} as its loop writes it: the records of one turn's Readys go into one batch, synced once
 * at the end of the turn, or early once the batch holds {@link #BYTES_PER_SYNC_MAX} (so it stays under
 * {@code RaftWal.BATCH_BYTES_MAX}). A write that fails is an {@link UncheckedIOException}: the loop, and with it the
 * engine, stops. Loop thread only, except {@link #syncs}.
 */
final class LoopLog {
    private static final Logger LOG = LoggerFactory.getLogger(LoopLog.class);

    /** The log is synced early once a turn has appended this much. */
    static final long BYTES_PER_SYNC_MAX = 64L * 1024 * 1024;
    /** What a record costs beyond its entry data, as counted against {@link #BYTES_PER_SYNC_MAX}. */
    private static final int RECORD_OVERHEAD_BYTES = 64;

    private final int loop;
    private final RaftWal wal;
    private final boolean fsync;
    private long bytesPending;
    /** Syncs so far, readable from any thread (benchmarks, metrics). */
    private volatile long syncs;

    LoopLog(int loop, RaftWal wal, boolean fsync) {
        this.loop = loop;
        this.wal = wal;
        this.fsync = fsync;
    }

    /**
     * Adds a group's hard state and new entries to the batch, syncing what the batch held first if it is full;
     * {@code tailsHeld} (or null): the entries whose tails the group's machine stored, whose heads alone are logged.
     */
    void append(int group, HardState hardState, List<Entry> entries, BitSet tailsHeld) {
        long bytes = RECORD_OVERHEAD_BYTES;
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            bytes += RECORD_OVERHEAD_BYTES + (tailsHeld != null && tailsHeld.get(i) ? entry.head().length
                    : entry.dataLength());
        }
        if (bytesPending + bytes > BYTES_PER_SYNC_MAX) {
            sync();
        }
        wal.append(group, hardState, entries, tailsHeld);
        bytesPending += bytes;
    }

    /** Adds a snapshot record (a compaction, or a leader's snapshot restored here) to the batch. */
    void appendSnapshot(int group, SnapshotMeta snapshot) {
        wal.appendSnapshot(group, snapshot);
    }

    /** Records, durably, that the group left: its records no longer hold segments and a restart does not bring it. */
    void removeGroup(int group) {
        wal.removeGroup(group);
        sync();
    }

    /** Makes the batch durable (fsync or not, as configured). */
    void sync() {
        try {
            wal.sync(fsync);
            bytesPending = 0;
            syncs++;
        } catch (IOException e) {
            throw new UncheckedIOException("loop " + loop + " could not write its Raft log", e);
        }
    }

    long syncs() {
        return syncs;
    }

    void close() {
        try {
            wal.close();
        } catch (IOException e) {
            LOG.warn("loop {}: closing its Raft log failed", loop, e);
        }
    }
}
