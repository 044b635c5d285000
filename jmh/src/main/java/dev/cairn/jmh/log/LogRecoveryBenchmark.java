package dev.cairn.jmh.log;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
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
 * Recovery time per GiB scanned: one active segment of 1 GiB of batches, opened after an unclean shutdown
 * (the recovery point is removed, so the whole segment is scanned: lengths, CRC-32C, offsets, index
 * rebuild). Single shot per iteration, seconds per op = seconds per GiB. The page cache is warm (the data
 * was just written); a cold disk adds its sequential read time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class LogRecoveryBenchmark {
    private static final long SEGMENT_BYTES = 1L << 30;

    @Param({"1024"})
    int batchBytes;

    private Path dir;
    private Path logDir;
    private LogConfig config;
    private Log opened;

    @Setup(Level.Trial)
    public void write() throws IOException {
        dir = BenchBatches.tempDirectory();
        logDir = dir.resolve("topic-0");
        config = LogConfig.defaults().withSegmentBytes(Integer.MAX_VALUE);
        ByteBuffer batch = BenchBatches.batch(batchBytes, 4, 1_700_000_000_000L);
        try (Log log = Log.open(new NioFileIo(), logDir, config)) {
            for (long written = 0; written + batchBytes <= SEGMENT_BYTES; written += batchBytes) {
                batch.putLong(0, log.logEndOffset());
                log.append(batch.duplicate());
            }
        }
    }

    @Setup(Level.Iteration)
    public void forgetCleanShutdown() throws IOException {
        Files.deleteIfExists(logDir.resolve("recovery-point"));
    }

    @Benchmark
    public long recoverOneGiB() {
        opened = Log.open(new NioFileIo(), logDir, config);
        return opened.logEndOffset();
    }

    @TearDown(Level.Iteration)
    public void close() {
        if (opened != null) {
            opened.close();
            opened = null;
        }
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        BenchBatches.deleteRecursively(dir);
    }
}
