package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers on other threads while the single writer appends and rolls (style.md point 11): every read sees
 * only whole, published batches, byte-identical to what was appended, never the live tail.
 */
class LogConcurrentReadTest {
    private static final int BATCHES = 20_000;

    @TempDir
    Path tempDir;

    /** Batch sizes vary with the offset so that a misplaced read cannot line up by accident. */
    private static ByteBuffer batch(long offset) {
        return TestBatches.batch(offset, 1, offset, (int) (offset % 97) * 3, offset);
    }

    @Test
    void readersSeeOnlyWholePublishedBatches() throws InterruptedException, ExecutionException, TimeoutException {
        LogConfig config = LogConfig.defaults().withSegmentBytes(64 * 1024).withIndexIntervalBytes(512);
        try (Log log = Log.open(new NioFileIo(), tempDir.resolve("t-0"), config)) {
            AtomicBoolean done = new AtomicBoolean();
            List<CompletableFuture<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                long seed = r;
                readers.add(CompletableFuture.supplyAsync(() -> readUntilDone(log, done, seed)));
            }
            for (long offset = 0; offset < BATCHES; offset++) {
                log.append(batch(offset));
            }
            done.set(true);
            for (CompletableFuture<Long> reader : readers) {
                assertTrue(reader.get(60, TimeUnit.SECONDS) > 0, "a reader read nothing");
            }
            assertTrue(log.segmentBaseOffsets().size() > 10);
        }
    }

    private static long readUntilDone(Log log, AtomicBoolean done, long seed) {
        Random random = new Random(seed);
        long batchesChecked = 0;
        boolean last = false;
        while (!last) {
            last = done.get();
            long end = log.logEndOffset();
            if (end == 0) {
                continue;
            }
            long offset = (long) (random.nextDouble() * end);
            LogSlice slice = log.read(offset, random.nextInt(8192), Long.MAX_VALUE);
            try {
                ByteBuffer bytes = slice.readBytes();
                long expected = slice.firstOffset();
                while (bytes.hasRemaining()) {
                    byte[] want = TestBatches.bytes(batch(expected));
                    byte[] got = new byte[want.length];
                    bytes.get(got);
                    assertArrayEquals(want, got, "batch " + expected);
                    expected++;
                    batchesChecked++;
                }
                assertEquals(slice.nextOffset(), expected);
                assertTrue(expected <= log.logEndOffset());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return batchesChecked;
    }
}
