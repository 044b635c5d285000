package dev.cairn.jmh.raft;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.raft.RatisCluster;
import dev.cairn.broker.raft.RatisSettings;
import dev.cairn.jmh.broker.LoopbackPorts;
import dev.cairn.jmh.log.BenchBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An in-process produce through a 1-replica Ratis group, below the network and API layers: the broker's
 * {@link RatisCluster} (Ratis server, metadata group, one partition group, {@code PartitionStateMachine},
 * {@code Partition}, {@code Log}) in a fresh directory under /tmp, and {@code submit(Append)} as ProduceHandler
 * calls it. Each committed entry is fsynced by Ratis before it counts (group commit), so {@code oneByOne} is
 * bounded by fsync latency and {@code pipelined} shows what group commit recovers. One op = one batch.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RatisProduceBenchmark {
    /** Appends in flight at once in {@link #pipelined}. */
    static final int PIPELINE_DEPTH = 64;
    private static final long SUBMIT_TIMEOUT_MS = 30_000;
    private static final long READY_WAIT_MS_MAX = 60_000;
    private static final TopicPartition PARTITION = new TopicPartition("bench", 0);

    @Param({"1024", "65536"})
    int batchBytes;

    private Path dir;
    private RatisCluster cluster;
    private ByteBuffer batch;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        dir = BenchBatches.tempDirectory();
        int port = LoopbackPorts.free();
        NioFileIo io = new NioFileIo();
        cluster = new RatisCluster(1, Map.of(1, "127.0.0.1:" + port),
                RatisSettings.defaults(dir.resolve("raft").toFile(), "127.0.0.1", port), io, dir,
                LogConfig.defaults(), new InMemoryOffsetStore(io));
        cluster.start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WAIT_MS_MAX);
        while (cluster.controllerId() < 0) {
            waitUntil(deadline, "no metadata leader");
        }
        MetadataResult created = cluster.submit(new MetadataCommand.CreateTopic(new TopicInfo(PARTITION.topic(),
                UUID.randomUUID(), List.of(List.of(1)), Map.of()))).join();
        if (created != MetadataResult.OK) {
            throw new IllegalStateException("topic not created: " + created);
        }
        while (cluster.leaderReplica(PARTITION).isEmpty()) {
            waitUntil(deadline, "partition group has no local leader");
        }
        // A current timestamp, as a producer stamps it: appends are stamped with the wall clock, and a batch
        // older than segment.ms (7 days) would roll the segment on every append (time-based rolling goes by
        // the first batch's timestamp, as in Kafka), which is what an earlier version of this benchmark measured.
        batch = BenchBatches.batch(batchBytes, 1, System.currentTimeMillis());
    }

    private static void waitUntil(long deadlineNs, String what) throws InterruptedException {
        if (System.nanoTime() - deadlineNs > 0) {
            throw new IllegalStateException(what + " after " + READY_WAIT_MS_MAX + " ms");
        }
        TimeUnit.MILLISECONDS.sleep(20);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        cluster.close();
        BenchBatches.deleteRecursively(dir);
    }

    private CompletableFuture<Result> submit() {
        return cluster.submit(PARTITION, new Command.Append(batch.duplicate(), System.currentTimeMillis()),
                SUBMIT_TIMEOUT_MS);
    }

    private static Result check(Result result) {
        if (!(result instanceof Result.Appended)) {
            throw new IllegalStateException("append failed: " + result);
        }
        return result;
    }

    /** One append at a time, as a synchronous one-by-one producer sees it. */
    @Benchmark
    public Result oneByOne() {
        return check(submit().join());
    }

    /** {@value #PIPELINE_DEPTH} appends submitted together, then all awaited. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE_DEPTH)
    public Result pipelined() {
        List<CompletableFuture<Result>> inFlight = new ArrayList<>(PIPELINE_DEPTH);
        for (int i = 0; i < PIPELINE_DEPTH; i++) {
            inFlight.add(submit());
        }
        Result last = null;
        for (CompletableFuture<Result> future : inFlight) {
            last = check(future.join());
        }
        return last;
    }
}
