package dev.cairn.jmh.partition;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.jmh.log.BenchBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The partition apply loop: what a Raft apply thread does for each committed produce entry, without Ratis.
 * {@link Partition#apply} checks the batch, copies it out of the (shared) entry bytes, assigns its base offset and
 * appends it to a {@link Log} in a fresh directory under /tmp (page cache only: the log's default flush policy).
 * One op = one Append command of one batch of {@code batchBytes}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PartitionApplyBenchmark {
    @Param({"100", "1024", "65536"})
    int batchBytes;

    private Path dir;
    private Partition partition;
    private ByteBuffer batch;
    private long raftIndex;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        dir = BenchBatches.tempDirectory();
        NioFileIo io = new NioFileIo();
        partition = new Partition("bench", 0, Log.open(io, dir.resolve("bench-0"), LogConfig.defaults()),
                new InMemoryOffsetStore(io));
        partition.claimWriter();
        batch = BenchBatches.batch(batchBytes, 1, 1_700_000_000_000L);
        raftIndex = 0;
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        partition.close();
        BenchBatches.deleteRecursively(dir);
    }

    @Benchmark
    public Result apply() {
        Result result = partition.apply(++raftIndex, 1, new Command.Append(batch.duplicate(), 1_700_000_000_000L));
        if (!(result instanceof Result.Appended)) {
            throw new IllegalStateException("apply failed: " + result);
        }
        return result;
    }
}
