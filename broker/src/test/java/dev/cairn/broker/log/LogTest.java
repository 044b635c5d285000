package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.io.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unit tests of {@link Log}: the contract of each call, on the real and the simulated file system. */
class LogTest {
    private static final Path DIR = Path.of("/sim/topic-0");

    @TempDir
    Path tempDir;

    private static LogConfig small() {
        return LogConfig.defaults().withSegmentBytes(1024).withIndexIntervalBytes(128).validate();
    }

    /** Appends {@code count} batches of 2 offsets and 100 payload bytes, timestamps 1000 + offset. */
    private static void appendBatches(Log log, int count) {
        for (int i = 0; i < count; i++) {
            long base = log.logEndOffset();
            log.append(TestBatches.batch(base, 2, 1000 + base, 100, 7));
        }
    }

    private static byte[] readAll(LogSlice slice) throws IOException {
        return TestBatches.bytes(slice.readBytes());
    }

    /**
     * Issue 17: appendAsNext writes the batch with the next base offset and the given leader epoch without touching
     * the caller's bytes (the Raft log cache shares them), and what it writes is a valid batch.
     */
    @Test
    void appendAsNextPatchesTheWrittenHeaderNotTheCallersBytes() throws IOException {
        Path dir = tempDir.resolve("t-1");
        ByteBuffer unassigned = TestBatches.batch(0, 3, 5, 40, 1);
        byte[] before = TestBatches.bytes(unassigned);
        try (Log log = Log.open(new NioFileIo(), dir, small())) {
            log.append(TestBatches.batch(0, 2, 5, 10, 1));
            assertEquals(5, log.appendAsNext(unassigned, 9));
            assertArrayEquals(before, TestBatches.bytes(unassigned), "the caller's batch is unchanged");
            LogSlice slice = log.read(2, 1 << 20, Long.MAX_VALUE);
            ByteBuffer written = ByteBuffer.wrap(readAll(slice));
            dev.cairn.protocol.record.RecordBatch batch = dev.cairn.protocol.record.RecordBatch.of(written);
            assertEquals(2, batch.baseOffset());
            assertEquals(4, batch.lastOffset());
            assertEquals(9, batch.partitionLeaderEpoch());
            assertTrue(batch.isChecksumValid(), "base offset and epoch lie outside the CRC");
            assertEquals(before.length, written.remaining());
        }
        try (Log reopened = Log.open(new NioFileIo(), dir, small())) {
            assertEquals(5, reopened.logEndOffset(), "recovery reads the patched batch back");
        }
    }

    @Test
    void appendsAndReadsBackOnDisk() throws IOException {
        Path dir = tempDir.resolve("t-0");
        ByteBuffer first = TestBatches.batch(0, 3, 5, 40, 1);
        ByteBuffer second = TestBatches.batch(3, 1, 6, 10, 2);
        try (Log log = Log.open(new NioFileIo(), dir, small())) {
            assertEquals(3, log.append(first.duplicate()));
            assertEquals(4, log.append(second.duplicate()));
            LogSlice slice = log.read(0, 1 << 20, Long.MAX_VALUE);
            assertNotNull(slice.fileChannel(), "NioFileIo gives a real channel for zero copy");
            assertEquals(0, slice.position());
            assertEquals(first.remaining() + second.remaining(), slice.sizeBytes());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(slice.sizeBytes(), slice.transferTo(Channels.newChannel(out)));
            byte[] expected = new byte[slice.sizeBytes()];
            ByteBuffer.wrap(expected).put(first.duplicate()).put(second.duplicate());
            assertArrayEquals(expected, out.toByteArray());
            assertEquals(0, slice.firstOffset());
            assertEquals(4, slice.nextOffset());
        }
        assertTrue(Files.exists(dir.resolve("00000000000000000000.log")));
        assertTrue(Files.exists(dir.resolve("00000000000000000000.index")));
        assertTrue(Files.exists(dir.resolve("00000000000000000000.timeindex")));
    }

    @Test
    void readReturnsTheBatchContainingTheOffsetWholeAndAtLeastOneBatch() throws IOException {
        try (Log log = Log.open(new SimulatedFileIo(1), DIR, LogConfig.defaults())) {
            ByteBuffer big = TestBatches.batch(0, 5, 1, 500, 1);
            log.append(big.duplicate());
            log.append(TestBatches.batch(5, 1, 2, 10, 2));
            LogSlice slice = log.read(3, 10, Long.MAX_VALUE);
            assertNull(slice.fileChannel(), "the simulated file system hands back bytes, not a channel");
            assertArrayEquals(TestBatches.bytes(big), readAll(slice), "offset 3 lies in batch 0..4, returned whole");
            assertEquals(5, slice.nextOffset());
            assertEquals(5, log.read(5, 0, Long.MAX_VALUE).firstOffset());
            assertEquals(6, log.read(5, 0, Long.MAX_VALUE).nextOffset());
            assertTrue(log.read(6, 100, Long.MAX_VALUE).isEmpty(), "at the log end the slice is empty");
            assertTrue(log.read(0, 100, 5).sizeBytes() > 0);
            assertTrue(log.read(0, 100, 4).isEmpty(), "a batch reaching the high watermark is not returned");
            assertEquals(TestBatches.bytes(big).length, log.read(0, 1 << 20, 5).sizeBytes(), "stops below upTo");
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(7, 100, Long.MAX_VALUE));
        }
    }

    @Test
    void readStopsAtMaxBytesOnBatchBoundaries() throws IOException {
        try (Log log = Log.open(new SimulatedFileIo(2), DIR, LogConfig.defaults().withIndexIntervalBytes(300))) {
            appendBatches(log, 50); // 161 bytes each
            for (int maxBytes : new int[] {0, 160, 161, 322, 323, 1000, 4000, 8050, 9000}) {
                for (long fetch : new long[] {0, 1, 17, 60, 99}) {
                    LogSlice slice = log.read(fetch, maxBytes, Long.MAX_VALUE);
                    int batches = Math.max(1, Math.min(maxBytes / 161, (int) (100 - fetch / 2 * 2) / 2));
                    assertEquals(batches * 161, slice.sizeBytes(), "fetch " + fetch + " max " + maxBytes);
                    assertEquals(fetch / 2 * 2, slice.firstOffset());
                }
            }
        }
    }

    @Test
    void rollsOnSizeAndIndexFullAndAge() {
        try (Log log = Log.open(new SimulatedFileIo(3), DIR, small())) {
            appendBatches(log, 13); // 161 bytes each: 6 fit under 1024
            assertEquals(List.of(0L, 12L, 24L), log.segmentBaseOffsets());
        }
        LogConfig tinyIndex = LogConfig.defaults().withIndexIntervalBytes(0).withSegmentIndexBytes(16);
        try (Log log = Log.open(new SimulatedFileIo(4), DIR, tinyIndex)) {
            appendBatches(log, 4); // entries at batches 2 and 3 fill a 2-entry index
            assertEquals(List.of(0L, 6L), log.segmentBaseOffsets());
        }
        try (Log log = Log.open(new SimulatedFileIo(5), DIR, LogConfig.defaults().withSegmentMs(100))) {
            appendBatches(log, 1); // timestamp 1000
            assertFalse(log.maybeRoll(1100));
            assertTrue(log.maybeRoll(1101));
            assertFalse(log.roll(), "an empty active segment does not roll");
            assertEquals(List.of(0L, 2L), log.segmentBaseOffsets());
        }
    }

    @Test
    void offsetLookups() {
        try (Log log = Log.open(new SimulatedFileIo(6), DIR, small())) {
            appendBatches(log, 20); // batch at offset o has timestamp 1000 + o
            assertEquals(0, log.logStartOffset());
            assertEquals(40, log.logEndOffset());
            assertEquals(0, log.offsetForTimestamp(0).getAsLong());
            assertEquals(10, log.offsetForTimestamp(1010).getAsLong());
            assertEquals(12, log.offsetForTimestamp(1011).getAsLong(), "first batch whose max timestamp >= 1011");
            assertEquals(38, log.offsetForTimestamp(1038).getAsLong());
            assertTrue(log.offsetForTimestamp(1039).isEmpty());
        }
    }

    @Test
    void truncateToRemovesWholeBatchesAcrossSegments() throws IOException {
        SimulatedFileIo io = new SimulatedFileIo(7);
        try (Log log = Log.open(io, DIR, small())) {
            appendBatches(log, 20);
            assertEquals(16, log.truncateTo(17), "offset 17 lies in batch 16..17, which goes");
            assertEquals(16, log.logEndOffset());
            assertEquals(List.of(0L, 12L), log.segmentBaseOffsets());
            assertTrue(log.offsetForTimestamp(1016).isEmpty(), "batch 16 is gone");
            assertEquals(14, log.offsetForTimestamp(1014).getAsLong());
            appendBatches(log, 1);
            assertEquals(18, log.logEndOffset());
            assertEquals(12, log.truncateTo(12));
            assertEquals(List.of(0L, 12L), log.segmentBaseOffsets());
            assertEquals(0, log.truncateTo(0), "offset 0 = log start: the log restarts empty at 0");
            assertEquals(0, log.logEndOffset());
            appendBatches(log, 2);
            log.truncateFullyAndStartAt(500);
            assertEquals(500, log.logStartOffset());
            assertEquals(500, log.logEndOffset());
            appendBatches(log, 1);
            assertEquals(500, log.read(500, 10, Long.MAX_VALUE).firstOffset());
        }
        try (Log reopened = Log.open(io, DIR, small())) {
            assertEquals(500, reopened.logStartOffset());
            assertEquals(502, reopened.logEndOffset());
        }
    }

    @Test
    void retentionByBytesAndTimeDeletesWholeInactiveSegments() {
        LogConfig bytes = small().withRetention(LogConfig.RETENTION_UNLIMITED, 2000);
        try (Log log = Log.open(new SimulatedFileIo(8), DIR, bytes)) {
            appendBatches(log, 40); // 6 batches (966 bytes) per segment
            // 7 segments (6 x 966 + 644 = 6440 bytes): delete the oldest while the rest still holds >= 2000.
            assertEquals(4, log.deleteExpired(0));
            assertEquals(48, log.logStartOffset());
            assertTrue(log.sizeBytes() < 2000 + 966);
            assertEquals(log.segmentBaseOffsets().get(0), log.logStartOffset());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(0, 100, Long.MAX_VALUE));
        }
        LogConfig time = small().withRetention(100, LogConfig.RETENTION_UNLIMITED);
        try (Log log = Log.open(new SimulatedFileIo(9), DIR, time)) {
            appendBatches(log, 40); // segment k's newest batch: timestamp 1000 + 12k + 10
            assertEquals(0, log.deleteExpired(1110));
            assertEquals(1, log.deleteExpired(1111));
            assertEquals(12, log.logStartOffset());
            assertEquals(5, log.deleteExpired(1_000_000), "everything but the active segment");
            assertEquals(72, log.logStartOffset());
        }
    }

    /** A compact-only topic is never trimmed by retention; compact,delete and delete are. */
    @Test
    void compactOnlyTopicsIgnoreRetention() {
        LogConfig broker = LogConfig.defaults().withRetention(1000, 5000);
        LogConfig compact = broker.withTopicOverrides(java.util.Map.of("cleanup.policy", "compact",
                "retention.ms", "10"));
        assertEquals(LogConfig.RETENTION_UNLIMITED, compact.retentionMs());
        assertEquals(LogConfig.RETENTION_UNLIMITED, compact.retentionBytes());
        LogConfig both = broker.withTopicOverrides(java.util.Map.of("cleanup.policy", "compact, delete",
                "retention.ms", "10"));
        assertEquals(10, both.retentionMs());
        assertEquals(5000, both.retentionBytes());
        assertEquals(1000, broker.withTopicOverrides(java.util.Map.of("cleanup.policy", "delete")).retentionMs());
    }

    /** DeleteRecords (issue 19): the start moves inside a segment; only segments wholly below it go. */
    @Test
    void deleteRecordsBeforeMovesTheStartAndDeletesWholeSegmentsBelowIt() {
        try (Log log = Log.open(new SimulatedFileIo(11), DIR, small())) {
            appendBatches(log, 40); // segments at 0, 12, 24, 36, 48, 60, 72; the log ends at 80
            assertEquals(0, log.deleteRecordsBefore(5), "inside the first segment: nothing deleted");
            assertEquals(5, log.logStartOffset());
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(4, 100, Long.MAX_VALUE));
            assertEquals(4, log.read(5, 1, Long.MAX_VALUE).firstOffset(), "the batch holding 5, whole");
            assertEquals(0, log.deleteRecordsBefore(3), "below the start: no change");
            assertEquals(5, log.logStartOffset());
            assertEquals(2, log.deleteRecordsBefore(30));
            assertEquals(30, log.logStartOffset());
            assertEquals(24, log.segmentBaseOffsets().get(0));
            assertEquals(4, log.deleteRecordsBefore(80), "up to the end: every segment but the active one");
            assertEquals(80, log.logStartOffset());
            assertEquals(List.of(72L), log.segmentBaseOffsets());
            assertThrows(InvariantViolation.class, () -> log.deleteRecordsBefore(81));
            // Retention after a moved start never moves it back.
            assertEquals(0, log.deleteExpired(Long.MAX_VALUE));
            assertEquals(80, log.logStartOffset());
        }
    }

    @Test
    void flushPolicyByMessagesAndByTime() {
        SimulatedFileIo io = new SimulatedFileIo(10);
        try (Log log = Log.open(io, DIR, LogConfig.defaults().withFlushInterval(5, 1000))) {
            appendBatches(log, 2);
            assertEquals(0, log.flushedOffset());
            appendBatches(log, 1);
            assertEquals(6, log.flushedOffset(), "6 unflushed offsets >= flush.messages 5");
            appendBatches(log, 1);
            assertFalse(log.maybeFlush(0));
            assertFalse(log.maybeFlush(999));
            assertTrue(log.maybeFlush(1000));
            assertEquals(8, log.flushedOffset());
            appendBatches(log, 1);
            log.flush();
            assertEquals(10, log.flushedOffset());
        }
    }

    @Test
    void diskFullLeavesTheLogConsistentAndAppendsResume() throws IOException {
        SimulatedFileIo io = new SimulatedFileIo(11);
        try (Log log = Log.open(io, DIR, small())) {
            appendBatches(log, 3);
            io.setCapacityBytes(io.usedBytes() + 100);
            StorageException error = assertThrows(StorageException.class,
                    () -> log.append(TestBatches.batch(6, 2, 0, 100, 1)));
            assertTrue(error.isDiskFull(), error.getMessage());
            assertEquals(6, log.logEndOffset());
            assertEquals(3 * 161, log.read(0, 1 << 20, Long.MAX_VALUE).sizeBytes(), "no partial batch visible");
            assertFalse(log.isOffline());
            io.setCapacityBytes(Long.MAX_VALUE);
            appendBatches(log, 1);
            assertEquals(8, log.logEndOffset());
        }
        try (Log log = Log.open(io, DIR, small())) {
            assertEquals(8, log.logEndOffset());
        }
    }

    @Test
    void failedFsyncTakesTheLogOfflineUntilReopened() {
        SimulatedFileIo io = new SimulatedFileIo(12);
        Log log = Log.open(io, DIR, small());
        appendBatches(log, 1);
        io.failNext(SimulatedFileIo.Operation.FORCE, 1);
        assertThrows(StorageException.class, log::flush);
        assertTrue(log.isOffline());
        assertThrows(StorageException.class, () -> appendBatches(log, 1));
        io.crash();
        try (Log reopened = Log.open(io, DIR, small())) {
            assertTrue(reopened.logEndOffset() <= 2);
            appendBatches(reopened, 1);
        }
    }

    @Test
    void appendChecksItsInvariants() {
        try (Log log = Log.open(new SimulatedFileIo(13), DIR, small())) {
            assertThrows(InvariantViolation.class, () -> log.append(TestBatches.batch(5, 1, 0, 0, 1)),
                    "base offset must equal the log end offset");
            ByteBuffer padded = ByteBuffer.allocate(200);
            padded.put(TestBatches.batch(0, 1, 0, 0, 1)).position(0);
            assertThrows(InvariantViolation.class, () -> log.append(padded), "exactly one batch per append");
            appendBatches(log, 1);
        }
    }

    @Test
    void singleWriterIsEnforced() throws InterruptedException, TimeoutException {
        try (Log log = Log.open(new SimulatedFileIo(14), DIR, small())) {
            appendBatches(log, 1);
            CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
                try {
                    log.append(TestBatches.batch(2, 1, 0, 0, 1));
                    return null;
                } catch (InvariantViolation expected) {
                    return expected;
                }
            });
            try {
                assertNotNull(other.get(10, TimeUnit.SECONDS), "a second writer thread is rejected");
                assertNotNull(other.get().getMessage());
                CompletableFuture<LogSlice> reader = CompletableFuture.supplyAsync(
                        () -> log.read(0, 100, Long.MAX_VALUE));
                assertEquals(2, reader.get(10, TimeUnit.SECONDS).nextOffset(), "readers may use any thread");
            } catch (ExecutionException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void configValidationNamesTheValues() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> LogConfig.defaults().withSegmentBytes(10).validate());
        assertTrue(error.getMessage().contains("segment.bytes 10"), error.getMessage());
        error = assertThrows(IllegalArgumentException.class,
                () -> LogConfig.defaults().withRetention(-5, -1).validate());
        assertTrue(error.getMessage().contains("retention.ms -5"), error.getMessage());
        assertEquals(1 << 30, LogConfig.defaults().segmentBytes());
    }

    @Test
    void segmentFileNamesAreTwentyDigitBaseOffsets() {
        assertEquals("00000000000000000042", SegmentDescriptor.fileNamePrefix(42));
        assertEquals(42, SegmentDescriptor.baseOffsetOf(Path.of("00000000000000000042.log"), ".log"));
        assertEquals(-1, SegmentDescriptor.baseOffsetOf(Path.of("42.log"), ".log"));
        assertEquals(-1, SegmentDescriptor.baseOffsetOf(Path.of("99999999999999999999.log"), ".log"));
    }
}
