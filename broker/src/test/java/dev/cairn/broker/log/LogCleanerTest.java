package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CompressionType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Log compaction (issue 19): the latest record per key survives at its original offset, tombstones stay for the
 * delete retention and then go, the log stays dense and readable, a second pass changes nothing, and two replicas
 * that run the same passes hold the same bytes.
 */
class LogCleanerTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int KEYS = 20;
    private static final long RETENTION_MS = 60_000;

    @TempDir
    Path tempDir;

    private static LogConfig config() {
        return LogConfig.defaults().withSegmentBytes(4096).withIndexIntervalBytes(256);
    }

    /** Appends {@code batches} batches of 5 records, keys cycling over KEYS, codecs cycling; the last 4 batches hold tombstones for keys k0..k4
     * records are tombstones. Returns the expected survivors: offset to (key, value or null). */
    private static TreeMap<Long, String[]> fill(Log log, int batches) {
        Map<String, Long> latest = new LinkedHashMap<>();
        Map<Long, String[]> all = new TreeMap<>();
        CompressionType[] codecs = CompressionType.values();
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(codecs[b % codecs.length]);
            long base = log.logEndOffset();
            for (int r = 0; r < 5; r++) {
                long offset = base + r;
                String key = "k" + (offset % KEYS);
                boolean tombstone = b >= batches - 4 && offset % KEYS < 5;
                String value = tombstone ? null : "v" + offset;
                builder.append(T0 + offset, key.getBytes(StandardCharsets.UTF_8),
                        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
                latest.put(key, offset);
                all.put(offset, new String[] {key, value});
            }
            log.appendAsNext(builder.build(), 3);
        }
        log.roll();
        TreeMap<Long, String[]> expected = new TreeMap<>();
        latest.values().forEach(offset -> expected.put(offset, all.get(offset)));
        return expected;
    }

    /** Every record in the log, by offset; checks that batches are dense and valid on the way. */
    private static TreeMap<Long, String[]> readAll(Log log) throws IOException {
        TreeMap<Long, String[]> records = new TreeMap<>();
        long offset = log.logStartOffset();
        RecordCursor cursor = new RecordCursor();
        while (offset < log.logEndOffset()) {
            ByteBuffer chunk = log.read(offset, 1 << 20, log.logEndOffset()).readBytes();
            int position = 0;
            while (position < chunk.limit()) {
                RecordBatch batch = new RecordBatch().wrap(chunk, position);
                assertEquals(offset, batch.baseOffset(), "batches stay dense");
                assertTrue(batch.isChecksumValid(), "CRC of batch at " + offset);
                cursor.reset(batch);
                while (cursor.next()) {
                    ByteBuffer value = cursor.value();
                    records.put(cursor.offset(), new String[] {StandardCharsets.UTF_8.decode(cursor.key()).toString(),
                            value == null ? null : StandardCharsets.UTF_8.decode(value).toString()});
                }
                position += batch.sizeInBytes();
                offset = batch.lastOffset() + 1;
            }
        }
        return records;
    }

    private static void assertSameRecords(TreeMap<Long, String[]> expected, TreeMap<Long, String[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((offset, record) -> assertArrayEquals(record, actual.get(offset), "offset " + offset));
    }

    @Test
    void theLatestRecordPerKeySurvivesAtItsOffsetAndTombstonesGoAfterTheRetention() throws IOException {
        Path dir = tempDir.resolve("t-0");
        TreeMap<Long, String[]> expected;
        long end;
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        try (Log log = Log.open(new NioFileIo(), dir, config())) {
            expected = fill(log, 200);
            end = log.logEndOffset();
            long before = log.sizeBytes();
            assertTrue(log.segmentCount() > 5, "several segments: " + log.segmentCount());

            LogCleaner.Outcome young = cleaner.clean(log, 0, end, T0 + end, RETENTION_MS);
            assertEquals(log.segmentCount() - 1, young.segmentsCleaned(), "every inactive segment");
            assertEquals(end, young.cleanedUpTo());
            assertFalse(young.keyMapFull());
            assertEquals(0, young.tombstonesRemoved());
            assertTrue(young.oldestTombstoneKeptMs() > 0);
            assertSameRecords(expected, readAll(log));
            assertEquals(0, log.logStartOffset());
            assertEquals(end, log.logEndOffset(), "offsets never change");
            // 5-record batches: each emptied batch keeps its 61-byte header.
            assertTrue(log.sizeBytes() < before * 6 / 10, log.sizeBytes() + " of " + before);

            LogCleaner.Outcome old = cleaner.clean(log, end, end, T0 + end + RETENTION_MS, RETENTION_MS);
            assertEquals(5, old.tombstonesRemoved());
            expected.values().removeIf(record -> record[1] == null);
            assertSameRecords(expected, readAll(log));

            LogCleaner.Outcome again = cleaner.clean(log, 0, end, T0 + end + RETENTION_MS, RETENTION_MS);
            assertEquals(0, again.segmentsRewritten(), "a second pass is a fixed point");
            assertEquals(0, again.recordsRemoved());
        }
        try (Log reopened = Log.open(new NioFileIo(), dir, config())) {
            assertEquals(end, reopened.logEndOffset());
            assertSameRecords(expected, readAll(reopened));
        }
    }

    @Test
    void replicasRunningTheSamePassesHoldTheSameBytesAndAReplayedEarlierPassChangesNothing() throws IOException {
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        Path a = tempDir.resolve("a-0");
        Path b = tempDir.resolve("b-0");
        try (Log first = Log.open(new NioFileIo(), a, config()); Log second = Log.open(new NioFileIo(), b, config())) {
            fill(first, 120);
            fill(second, 120);
            long middle = first.segmentBaseOffsets().get(first.segmentCount() / 2);
            long end = first.logEndOffset();
            for (Log log : List.of(first, second)) {
                cleaner.clean(log, 0, middle, T0, RETENTION_MS);
                cleaner.clean(log, middle, end, T0 + end + RETENTION_MS, RETENTION_MS);
            }
            // The second replica restarts and replays the first pass: nothing changes.
            LogCleaner.Outcome replay = cleaner.clean(second, 0, middle, T0, RETENTION_MS);
            assertEquals(0, replay.segmentsRewritten());
        }
        Map<String, byte[]> filesA = segmentFiles(a);
        Map<String, byte[]> filesB = segmentFiles(b);
        assertEquals(filesA.keySet(), filesB.keySet());
        filesA.forEach((name, bytes) -> assertArrayEquals(bytes, filesB.get(name), name));
    }

    @Test
    void aFullKeyMapCleansOnlyTheSegmentsWhoseKeysFit() throws IOException {
        LogCleaner cleaner = new LogCleaner(KEYS / 2, 1 << 20);
        try (Log log = Log.open(new NioFileIo(), tempDir.resolve("m-0"), config())) {
            TreeMap<Long, String[]> all = new TreeMap<>();
            fill(log, 100);
            all.putAll(readAll(log));
            LogCleaner.Outcome outcome = cleaner.clean(log, 0, log.logEndOffset(), T0, RETENTION_MS);
            assertTrue(outcome.keyMapFull());
            // With only 5 records per batch and KEYS / 2 keys mapped, the first segment cannot be mapped whole.
            assertEquals(0, outcome.segmentsCleaned());
            assertSameRecords(all, readAll(log));
        }
    }

    @Test
    void aCompactedCopyLeftByACrashIsDeletedOnOpen() throws IOException {
        Path dir = tempDir.resolve("c-0");
        TreeMap<Long, String[]> all;
        try (Log log = Log.open(new NioFileIo(), dir, config())) {
            fill(log, 50);
            all = readAll(log);
        }
        Path leftover = SegmentDescriptor.cleanedFile(dir, 0);
        Files.write(leftover, new byte[] {1, 2, 3});
        Files.delete(SegmentDescriptor.offsetIndexFile(dir, 0));
        try (Log log = Log.open(new NioFileIo(), dir, config())) {
            assertFalse(Files.exists(leftover));
            assertSameRecords(all, readAll(log));
        }
    }

    /**
     * A restore truncates into a compacted segment and Raft replays the same batches: the segment ends where it
     * ended before, not where its smaller size would roll it, even across a restart in the middle of the replay.
     */
    @Test
    void aReplayIntoACompactedSegmentRebuildsTheSameSegmentBoundaries() throws IOException {
        Path dir = tempDir.resolve("r-0");
        List<ByteBuffer> batches = new ArrayList<>();
        List<Long> bounds;
        long end;
        try (Log log = Log.open(new NioFileIo(), dir, config())) {
            for (int b = 0; b < 120; b++) {
                RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
                for (int r = 0; r < 5; r++) {
                    builder.append(T0 + b, ("k" + (b * 5 + r) % KEYS).getBytes(StandardCharsets.UTF_8),
                            ("value-" + b + "-" + r).getBytes(StandardCharsets.UTF_8));
                }
                ByteBuffer batch = builder.build();
                batches.add(batch.duplicate());
                log.appendAsNext(batch, 1);
            }
            bounds = log.segmentBaseOffsets();
            end = log.logEndOffset();
            new LogCleaner(1000, 1 << 20).clean(log, 0, bounds.get(bounds.size() - 1), T0, RETENTION_MS);
            // Rewind into the middle of the second segment, replay a few batches, and stop (a crash).
            long rewind = bounds.get(1) + 5 * 3;
            assertEquals(rewind, log.truncateTo(rewind));
            for (int b = (int) (rewind / 5); b < rewind / 5 + 4; b++) {
                log.appendAsNext(batches.get(b).duplicate(), 1);
            }
        }
        try (Log log = Log.open(new NioFileIo(), dir, config())) {
            for (int b = (int) (log.logEndOffset() / 5); b < batches.size(); b++) {
                log.appendAsNext(batches.get(b).duplicate(), 1);
            }
            assertEquals(end, log.logEndOffset());
            assertEquals(bounds, log.segmentBaseOffsets(), "the same segments after the replay");
        }
    }

    private static Map<String, byte[]> segmentFiles(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path file : list.filter(p -> p.toString().endsWith(".log")).toList()) {
                files.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        return files;
    }
}
