package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery on real files (NioFileIo): 100k batches, then a torn or bit-flipped tail, a lost index, or a
 * flipped bit in an early segment. Kafka's behaviour (kafka-protocol.md A.5: indexes are rebuilt after an
 * unclean shutdown, the torn tail of the active segment is truncated) plus Cairn's rule that damage below
 * the recovery point is reported, not truncated.
 */
class LogRecoveryTest {
    private static final int BATCHES = 100_000;
    private static final int PAYLOAD_BYTES = 100;
    private static final int BATCH_BYTES = 161;
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(1 << 20).validate();

    @TempDir
    Path tempDir;

    private Path dir;

    private static ByteBuffer batch(long offset) {
        return TestBatches.batch(offset, 1, 1_000 + offset, PAYLOAD_BYTES, offset);
    }

    /** Writes 100k one-record batches and abandons the log without closing it, as a killed process would. */
    @BeforeEach
    void writeAndAbandon() {
        dir = tempDir.resolve("topic-0");
        Log log = Log.open(new NioFileIo(), dir, CONFIG);
        for (long offset = 0; offset < BATCHES; offset++) {
            log.append(batch(offset));
        }
        assertEquals(BATCHES, log.logEndOffset());
        assertTrue(log.segmentBaseOffsets().size() > 10);
    }

    private Path lastSegment() throws IOException {
        List<Path> logs;
        try (var files = Files.list(dir)) {
            logs = files.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        return logs.get(logs.size() - 1);
    }

    private static void flipBit(Path file, long position) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(position);
            int b = raf.read();
            raf.seek(position);
            raf.write(b ^ 0x10);
        }
    }

    private static void checkReads(Log log, long end) throws IOException {
        for (long offset = 0; offset < end; offset += 997) {
            LogSlice slice = log.read(offset, 3 * BATCH_BYTES, Long.MAX_VALUE);
            assertEquals(offset, slice.firstOffset());
            ByteBuffer bytes = slice.readBytes();
            for (long o = offset; o < slice.nextOffset(); o++) {
                ByteBuffer one = bytes.slice(bytes.position(), BATCH_BYTES);
                assertArrayEquals(TestBatches.bytes(batch(o)), TestBatches.bytes(one), "batch " + o);
                bytes.position(bytes.position() + BATCH_BYTES);
            }
        }
        LogSlice last = log.read(end - 1, 0, Long.MAX_VALUE);
        assertArrayEquals(TestBatches.bytes(batch(end - 1)), TestBatches.bytes(last.readBytes()));
    }

    @Test
    void tornTailIsTruncatedToTheLastGoodBatch() throws IOException {
        Path active = lastSegment();
        long size = Files.size(active);
        try (FileChannel channel = FileChannel.open(active, StandardOpenOption.WRITE)) {
            channel.truncate(size - 50); // the last batch loses its last 50 bytes
        }
        try (Log log = Log.open(new NioFileIo(), dir, CONFIG)) {
            assertEquals(BATCHES - 1, log.logEndOffset());
            assertEquals(size - BATCH_BYTES, Files.size(active), "the torn bytes are cut off");
            checkReads(log, BATCHES - 1);
            assertEquals(BATCHES, log.append(batch(BATCHES - 1)), "appends continue after the cut");
            assertEquals(50_000, log.offsetForTimestamp(1_000 + 50_000).getAsLong(), "time index rebuilt");
        }
    }

    @Test
    void bitFlippedTailIsTruncated() throws IOException {
        Path active = lastSegment();
        long size = Files.size(active);
        flipBit(active, size - 3 * BATCH_BYTES + 70); // inside the records of the third-last batch
        try (Log log = Log.open(new NioFileIo(), dir, CONFIG)) {
            assertEquals(BATCHES - 3, log.logEndOffset());
            checkReads(log, BATCHES - 3);
        }
    }

    @Test
    void missingIndexOfAnInactiveSegmentIsRebuilt() throws IOException {
        Path index = dir.resolve(SegmentDescriptor.fileNamePrefix(0) + SegmentDescriptor.OFFSET_INDEX_SUFFIX);
        Files.delete(index);
        Path timeIndex = dir.resolve(SegmentDescriptor.fileNamePrefix(0) + SegmentDescriptor.TIME_INDEX_SUFFIX);
        Files.write(timeIndex, new byte[] {1, 2, 3}); // not a multiple of the entry size: fails the sanity check
        try (Log log = Log.open(new NioFileIo(), dir, CONFIG)) {
            assertTrue(Files.size(index) > 0, "index rewritten");
            assertEquals(0, Files.size(timeIndex) % SegmentDescriptor.TIME_INDEX_ENTRY_BYTES);
            assertEquals(BATCHES, log.logEndOffset());
            checkReads(log, BATCHES);
            assertEquals(123, log.offsetForTimestamp(1_123).getAsLong());
        }
    }

    @Test
    void flippedBitInAnEarlySegmentIsReportedNotTruncated() throws IOException {
        long base = 2L * ((1 << 20) / BATCH_BYTES); // third segment
        Path segment = dir.resolve(SegmentDescriptor.fileNamePrefix(base) + SegmentDescriptor.LOG_SUFFIX);
        long position = 400L * BATCH_BYTES + 90;
        flipBit(segment, position);

        // With its index intact the segment is not rescanned on open; the deep check finds the damage.
        try (Log log = Log.open(new NioFileIo(), dir, CONFIG)) {
            LogCorruptionException error = assertThrows(LogCorruptionException.class, log::verify);
            assertEquals(segment, error.file());
            assertEquals(400L * BATCH_BYTES, error.position());
            assertTrue(error.getMessage().contains("CRC-32C mismatch"), error.getMessage());
        }
        // Without its index the segment is rescanned on open: the partition refuses to start.
        long sizeBefore = Files.size(segment);
        Files.delete(dir.resolve(SegmentDescriptor.fileNamePrefix(base) + SegmentDescriptor.OFFSET_INDEX_SUFFIX));
        LogCorruptionException error = assertThrows(LogCorruptionException.class,
                () -> Log.open(new NioFileIo(), dir, CONFIG));
        assertEquals(segment, error.file());
        assertEquals(400L * BATCH_BYTES, error.position());
        assertTrue(error.getMessage().contains(segment.toString()), error.getMessage());
        assertTrue(error.getMessage().contains("position " + 400L * BATCH_BYTES), error.getMessage());
        assertEquals(sizeBefore, Files.size(segment), "nothing is truncated");
        assertEquals(BATCHES, countBatches(), "every other segment is untouched");
    }

    @Test
    void flippedBitBelowTheRecoveryPointOfTheActiveSegmentIsReported() throws IOException {
        // Reopening recovers and fsyncs the log, so the recovery point is now the log end; abandon it again.
        Log reopened = Log.open(new NioFileIo(), dir, CONFIG);
        assertEquals(BATCHES, reopened.flushedOffset());
        Path active = lastSegment();
        flipBit(active, 2L * BATCH_BYTES + 80);
        LogCorruptionException error = assertThrows(LogCorruptionException.class,
                () -> Log.open(new NioFileIo(), dir, CONFIG));
        assertEquals(active, error.file());
        assertEquals(2L * BATCH_BYTES, error.position());
        assertTrue(error.getMessage().contains("below the recovery point"), error.getMessage());
    }

    private long countBatches() throws IOException {
        long total = 0;
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                total += Files.size(p) / BATCH_BYTES;
            }
        }
        return total;
    }
}
