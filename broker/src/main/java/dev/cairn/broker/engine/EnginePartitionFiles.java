package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.Directories;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * Opens and deletes the engine partitions' files (log, snapshots, committed offsets), {@link #IN_PARALLEL_MAX} at
 * a time on threads that end when idle. Opening even an empty log forces its directory and recovery checkpoint to
 * disk, milliseconds each: one at a time, 1,000 new partitions took 10-30 s per broker with three brokers on 2 cores,
 * and a CreateTopics waiting for their leaders came close to its timeout.
 *
 * <p>The work queue holds the partitions of the change being reconciled (one change at a time, on the reconciler
 * thread), so at most {@code Limits.ENGINE_PARTITIONS_PER_BROKER_MAX} tasks.
 *
 * <p>A partition's files: its log in {@code <logs>/<topic>-<partition>/}, as with Ratis; its snapshots in
 * {@code <snapshots>/<group>/}; its Raft entries in the engine's shared log (not here).
 */
final class EnginePartitionFiles implements AutoCloseable {
    /** Partitions opened or deleted at once when a topic is created or deleted (the Ratis side's bound too). */
    static final int IN_PARALLEL_MAX = 8;
    /** Idle threads end after this long: topics are created and deleted rarely. */
    private static final long THREAD_IDLE_S = 30;

    private final EngineGroups.Storage storage;
    private final Consumer<TopicPartition> onAppended;
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(IN_PARALLEL_MAX, IN_PARALLEL_MAX, THREAD_IDLE_S,
            TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread thread = new Thread(r, "cairn-engine-partition-files");
                thread.setDaemon(true);
                return thread;
            });

    /** @param onAppended told of every append to a partition this opens */
    EnginePartitionFiles(EngineGroups.Storage storage, Consumer<TopicPartition> onAppended) {
        this.storage = storage;
        this.onAppended = onAppended;
        pool.allowCoreThreadTimeOut(true);
    }

    /** Opens the machine of {@code entry}'s group: its partition's log and its snapshots. */
    CompletableFuture<EnginePartitionMachine> open(EngineGroupIndex.Entry entry,
            LongFunction<CompletableFuture<?>> compact) {
        return CompletableFuture.supplyAsync(() -> {
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            try {
                return new EnginePartitionMachine(tp, () -> new Partition(entry.topic(), entry.partition(),
                        Log.open(storage.io(), partitionDir(tp), storage.logConfig().withTopicOverrides(
                                entry.configs())), storage.offsets(), storage.logConfig(), entry.configs()),
                        partitionDir(tp), PartitionSnapshots.open(snapshotsDir(entry.group())),
                        () -> onAppended.accept(tp), compact);
            } catch (IOException e) {
                throw new UncheckedIOException(tp + ": opening its partition failed", e);
            }
        }, pool);
    }

    /**
     * Closes a removed group's partition and deletes what it kept: its committed offsets (a topic created again under
     * the same name starts without them, and its Raft indexes start again from 1), its log and its snapshots.
     */
    CompletableFuture<Void> delete(TopicPartition tp, int group, EnginePartitionMachine machine) {
        return CompletableFuture.runAsync(() -> {
            try {
                machine.partition().close();
                storage.offsets().removePartition(tp.topic(), tp.partition());
                Directories.deleteRecursively(partitionDir(tp));
                Directories.deleteRecursively(snapshotsDir(group));
            } catch (IOException e) {
                throw new UncheckedIOException(tp + ": deleting its files failed", e);
            }
        }, pool);
    }

    private Path partitionDir(TopicPartition tp) {
        return storage.logsDir().resolve(tp.topic() + "-" + tp.partition());
    }

    private Path snapshotsDir(int group) {
        return storage.snapshotsDir().resolve(Integer.toString(group));
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
