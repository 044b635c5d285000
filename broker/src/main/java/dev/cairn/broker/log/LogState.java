package dev.cairn.broker.log;

import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.StorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The state of one {@link Log} that the classes doing its work share, and the checks every mutation starts with
 * (single writer, not offline). A plain holder whose fields keep the visibility the log's threads rely on: the
 * segment map is concurrent, and the config, the published offsets, the writer and the failure are volatile, so
 * readers on any thread see what the writer published; the active segment and the retired segments are the
 * writer's alone.
 */
final class LogState {
    final FileIo io;
    final Path directory;
    volatile LogConfig config;
    final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
    final RecoveryCheckpoint checkpoint;
    final RollPlan rollPlan;
    /**
     * Segments removed by retention, truncation or compaction (replaced by a cleaned copy); their files are closed on
     * the next retention pass.
     */
    final List<Segment> retired = new ArrayList<>();
    Segment active;
    volatile long logStartOffset;
    volatile long logEndOffset;
    volatile long flushedOffset;
    volatile Thread writer;
    volatile StorageException failure;

    LogState(FileIo io, Path directory, LogConfig config, RecoveryCheckpoint checkpoint) {
        this.io = io;
        this.directory = directory;
        this.config = config;
        this.checkpoint = checkpoint;
        this.rollPlan = new RollPlan(io, directory);
    }

    /** The bytes of all segments (retention's size, {@link Log#sizeBytes()}). */
    long sizeBytes() {
        long total = 0;
        for (Segment segment : segments.values()) {
            total += segment.sizeBytes();
        }
        return total;
    }

    void checkWriter() {
        Thread current = Thread.currentThread();
        Thread owner = writer;
        if (owner == null) {
            writer = current;
            return;
        }
        Invariant.check(owner == current, "log %s has single writer %s, called from %s", directory, owner.getName(),
                current.getName());
    }

    void checkHealthy() {
        StorageException cause = failure;
        if (cause != null) {
            throw new StorageException("log " + directory + " is offline after an earlier failure", cause);
        }
    }

    void closeRetired() {
        for (Segment segment : retired) {
            try {
                segment.close();
            } catch (IOException ignored) {
                // The files are already unlinked; a failing close leaks nothing that matters.
            }
        }
        retired.clear();
    }
}
