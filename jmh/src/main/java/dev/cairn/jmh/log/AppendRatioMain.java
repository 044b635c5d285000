package dev.cairn.jmh.log;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An interleaved A/B companion to {@link LogAppendBenchmark} for shared, noisy machines: JMH runs all
 * {@code logAppend} iterations before all {@code rawWrite} ones, so a change in background load between them
 * skews the ratio. This main alternates short slices of Log appends and raw FileChannel writes of the same
 * batch size (fresh files each slice, page cache only) and reports the ratio of their summed rates.
 *
 * <p>Run: {@code java -cp jmh/target/cairn-benchmarks.jar dev.cairn.jmh.log.AppendRatioMain [rounds] [sliceMs]}
 */
public final class AppendRatioMain {
    private static final int[] BATCH_BYTES = {100, 1024, 65536};

    private AppendRatioMain() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long sliceNs = (args.length > 1 ? Long.parseLong(args[1]) : 300) * 1_000_000L;
        for (int batchBytes : BATCH_BYTES) {
            ByteBuffer batch = BenchBatches.batch(batchBytes, 1, 1_700_000_000_000L);
            runLog(batch, sliceNs); // warm up both paths
            runRaw(batch, sliceNs);
            long logOps = 0;
            long rawOps = 0;
            for (int round = 0; round < rounds; round++) {
                logOps += runLog(batch, sliceNs);
                rawOps += runRaw(batch, sliceNs);
            }
            double seconds = rounds * sliceNs / 1e9;
            System.out.printf("batch %6d B: log %10.0f appends/s (%7.1f MB/s), raw %10.0f writes/s (%7.1f MB/s),"
                    + " ratio %.2f%n", batchBytes, logOps / seconds, logOps * (double) batchBytes / seconds / 1e6,
                    rawOps / seconds, rawOps * (double) batchBytes / seconds / 1e6, logOps / (double) rawOps);
        }
    }

    private static long runLog(ByteBuffer batch, long sliceNs) throws IOException {
        Path dir = BenchBatches.tempDirectory();
        long ops = 0;
        try (Log log = Log.open(new NioFileIo(), dir.resolve("topic-0"), LogConfig.defaults())) {
            long end = System.nanoTime() + sliceNs;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 64; i++) {
                    batch.putLong(0, log.logEndOffset());
                    log.append(batch.duplicate());
                }
                ops += 64;
            }
        } finally {
            BenchBatches.deleteRecursively(dir);
        }
        return ops;
    }

    private static long runRaw(ByteBuffer batch, long sliceNs) throws IOException {
        Path dir = BenchBatches.tempDirectory();
        long ops = 0;
        try (FileChannel raw = FileChannel.open(dir.resolve("raw.bin"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            long position = 0;
            long end = System.nanoTime() + sliceNs;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 64; i++) {
                    ByteBuffer source = batch.duplicate();
                    while (source.hasRemaining()) {
                        position += raw.write(source, position);
                    }
                }
                ops += 64;
            }
        } finally {
            BenchBatches.deleteRecursively(dir);
        }
        return ops;
    }
}
