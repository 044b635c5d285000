package dev.cairn.jmh.log;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
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
 * Sequential fetch throughput over 256 MiB of 1 KiB batches in 64 MiB segments (warm page cache): each op
 * is one {@code Log.read(offset, 1 MiB, LEO)} and the transfer of the slice, either zero-copy
 * ({@code transferTo} a FileChannel on /dev/null, i.e. sendfile) or copied into a heap buffer
 * ({@code readBytes}, the TLS path). One op moves about {@code maxBytes} bytes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LogReadBenchmark {
    private static final long LOG_BYTES = 256L << 20;

    @Param({"1048576"})
    int maxBytes;

    private Path dir;
    private Log log;
    private FileChannel devNull;
    private long fetchOffset;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchBatches.tempDirectory();
        log = Log.open(new NioFileIo(), dir.resolve("topic-0"), LogConfig.defaults().withSegmentBytes(64 << 20));
        ByteBuffer batch = BenchBatches.batch(1024, 4, 1_700_000_000_000L);
        for (long written = 0; written < LOG_BYTES; written += 1024) {
            batch.putLong(0, log.logEndOffset());
            log.append(batch.duplicate());
        }
        devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        log.close();
        devNull.close();
        BenchBatches.deleteRecursively(dir);
    }

    private LogSlice next() {
        if (fetchOffset >= log.logEndOffset()) {
            fetchOffset = log.logStartOffset();
        }
        LogSlice slice = log.read(fetchOffset, maxBytes, Long.MAX_VALUE);
        fetchOffset = slice.nextOffset();
        return slice;
    }

    @Benchmark
    public long readZeroCopy() throws IOException {
        return next().transferTo(devNull);
    }

    @Benchmark
    public int readCopy() throws IOException {
        return next().readBytes().remaining();
    }
}
