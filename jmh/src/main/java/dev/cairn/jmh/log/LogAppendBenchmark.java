package dev.cairn.jmh.log;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * Append throughput of {@link Log} against a raw sequential {@link FileChannel} write loop of the same batch
 * sizes, in the same run (ops/s; one op = one batch of {@code batchBytes}). The ratio logAppend / rawWrite
 * is the storage engine's overhead. Both write to a fresh directory under /tmp per iteration, page cache
 * only (Kafka's default flush policy: no fsync by policy); the log also fsyncs a segment when it rolls at
 * segment.bytes (1 GiB), which the raw loop never does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LogAppendBenchmark {
    @Param({"100", "1024", "65536"})
    int batchBytes;

    private Path dir;
    private Log log;
    private ByteBuffer batch;
    private FileChannel raw;
    private long rawPosition;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        dir = BenchBatches.tempDirectory();
        log = Log.open(new NioFileIo(), dir.resolve("topic-0"), LogConfig.defaults());
        batch = BenchBatches.batch(batchBytes, 1, 1_700_000_000_000L);
        raw = FileChannel.open(dir.resolve("raw.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        rawPosition = 0;
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        log.close();
        raw.close();
        BenchBatches.deleteRecursively(dir);
    }

    @Benchmark
    public long logAppend() {
        // Offset assignment as the partition core does it: baseOffset lies outside the CRC.
        batch.putLong(0, log.logEndOffset());
        return log.append(batch.duplicate());
    }

    @Benchmark
    public long rawWrite() throws IOException {
        ByteBuffer source = batch.duplicate();
        while (source.hasRemaining()) {
            rawPosition += raw.write(source, rawPosition);
        }
        return rawPosition;
    }
}
