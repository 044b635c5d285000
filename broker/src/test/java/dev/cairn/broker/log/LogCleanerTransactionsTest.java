package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.protocol.record.ControlBatch;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CompressionType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction of transactional data, as Kafka's cleaner does it ({@code Cleaner.buildOffsetMap} / {@code cleanInto}
 * with {@code CleanedTransactionMetadata}, KIP-98 markers, KIP-534 delete horizons): records of aborted transactions
 * never win over committed values of their keys and are removed; an abort marker gets its delete horizon on the first
 * pass, a commit marker once every record of its transaction is compacted away, and either goes on a pass after its
 * horizon, keeping its offset's place; a pass run again, or an earlier pass replayed after a later one, changes
 * nothing; two replicas running the same passes hold the same bytes.
 */
class LogCleanerTransactionsTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long RETENTION_MS = 60_000;
    private static final long P1 = 1_001;
    private static final long P2 = 1_002;

    @TempDir
    Path tempDir;

    /** An aborted transaction as the partition's index names it. */
    private record Txn(long producerId, long firstOffset, long lastOffset) implements AbortedTransactions.Aborted {
    }

    /** The index as the partition serves it to the cleaner. */
    private static AbortedTransactions index(Txn... aborted) {
        return (from, to, endingFrom) -> Stream.of(aborted)
                .filter(t -> t.firstOffset() >= from && t.firstOffset() < to && t.lastOffset() >= endingFrom)
                .sorted(Comparator.comparingLong(Txn::firstOffset)).toList();
    }

    private static Log open(Path dir) {
        return Log.open(new NioFileIo(), dir, LogConfig.defaults().withSegmentBytes(1 << 20));
    }

    /** A batch of "key=value" records (value "null" for a tombstone) from {@code producerId}, transactional or not. */
    private static ByteBuffer batch(long producerId, boolean transactional, long timestampMs, String... records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.LZ4);
        if (producerId >= 0) {
            builder.producerState(producerId, (short) 0, (int) (timestampMs % 1000));
        }
        for (String record : records) {
            String[] kv = record.split("=", 2);
            builder.append(timestampMs, kv[0].getBytes(StandardCharsets.UTF_8),
                    kv[1].equals("null") ? null : kv[1].getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer batch = builder.build();
        if (transactional) {
            batch.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) (batch.getShort(
                    RecordBatchDescriptor.ATTRIBUTES_OFFSET) | RecordBatchDescriptor.TRANSACTIONAL_MASK));
            RecordBatch.of(batch).writeChecksum();
        }
        return batch;
    }

    private static void data(Log log, long producerId, String... records) {
        log.appendAsNext(batch(producerId, true, T0 + log.logEndOffset(), records), 1);
    }

    private static void plain(Log log, String... records) {
        log.appendAsNext(batch(-1, false, T0 + log.logEndOffset(), records), 1);
    }

    private static void marker(Log log, long producerId, boolean commit) {
        log.appendAsNext(ControlBatch.marker(producerId, (short) 0, commit, 0, T0 + log.logEndOffset()), 1);
    }

    /** One batch as a reader finds it. */
    private record Seen(long baseOffset, boolean control, int records, long deleteHorizonMs) {
    }

    /** Every batch of the log, checking on the way that batches stay dense and valid. */
    private static List<Seen> batches(Log log) throws IOException {
        List<Seen> batches = new ArrayList<>();
        forEachBatch(log, batch -> batches.add(new Seen(batch.baseOffset(), batch.isControl(), batch.recordsCount(),
                batch.deleteHorizonMs())));
        return batches;
    }

    /** Offset to "key=value" of every data record the log holds. */
    private static TreeMap<Long, String> records(Log log) throws IOException {
        TreeMap<Long, String> records = new TreeMap<>();
        RecordCursor cursor = new RecordCursor();
        forEachBatch(log, batch -> {
            if (batch.isControl()) {
                return;
            }
            cursor.reset(batch);
            while (cursor.next()) {
                ByteBuffer value = cursor.value();
                records.put(cursor.offset(), StandardCharsets.UTF_8.decode(cursor.key()) + "="
                        + (value == null ? "null" : StandardCharsets.UTF_8.decode(value)));
            }
        });
        return records;
    }

    private interface BatchCheck {
        void accept(RecordBatch batch);
    }

    private static void forEachBatch(Log log, BatchCheck check) throws IOException {
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            ByteBuffer chunk = log.read(offset, 1 << 20, log.logEndOffset()).readBytes();
            int position = 0;
            while (position < chunk.limit()) {
                RecordBatch batch = new RecordBatch().wrap(chunk, position);
                assertEquals(offset, batch.baseOffset(), "batches stay dense");
                assertTrue(batch.isChecksumValid(), "CRC of batch at " + offset);
                check.accept(batch);
                position += batch.sizeInBytes();
                offset = batch.lastOffset() + 1;
            }
        }
    }

    private static Seen at(List<Seen> batches, long baseOffset) {
        return batches.stream().filter(b -> b.baseOffset() == baseOffset).findFirst().orElseThrow();
    }

    /**
     * Two producers, two segments: P1 commits k1 and k2, P2 aborts a transaction over k1 and k3, a plain k4, then P1
     * commits k2 again while P2 aborts one over k2 in between (interleaved). Offsets:
     * <pre>
     *   0-1 P1 k1=a1 k2=a2 | 2 commit P1 | 3-4 P2 k1=b1 k3=b3 | 5 abort P2 || 6 k4=p4 | 7 P1 k2=c2 | 8 P2 k2=d2
     *   | 9 abort P2 | 10 commit P1
     * </pre>
     */
    private static void fillInterleaved(Log log) {
        data(log, P1, "k1=a1", "k2=a2");
        marker(log, P1, true);
        data(log, P2, "k1=b1", "k3=b3");
        marker(log, P2, false);
        log.roll();
        plain(log, "k4=p4");
        data(log, P1, "k2=c2");
        data(log, P2, "k2=d2");
        marker(log, P2, false);
        marker(log, P1, true);
        log.roll();
    }

    private static final AbortedTransactions INTERLEAVED = index(new Txn(P2, 3, 5), new Txn(P2, 8, 9));

    @Test
    void abortedRecordsNeverWinOverCommittedOnesAndGo() throws IOException {
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        try (Log log = open(tempDir.resolve("t-0"))) {
            fillInterleaved(log);
            LogCleaner.Outcome outcome = cleaner.clean(log, 0, 11, T0, RETENTION_MS, INTERLEAVED);

            // k1: the aborted b1 is not the latest value, the committed a1 is; k2: c2, not the aborted d2 after it;
            // k3 only ever had an aborted value.
            assertEquals(Map.of(0L, "k1=a1", 6L, "k4=p4", 7L, "k2=c2"), records(log));
            assertEquals(3, outcome.abortedRecordsRemoved());
            assertEquals(4, outcome.recordsRemoved(), "the three aborted records and the older k2=a2");
            assertEquals(11, outcome.transactionsCleanedUpTo());
            assertEquals(11, log.logEndOffset(), "offsets never change");
            List<Seen> batches = batches(log);
            assertEquals(0, at(batches, 3).records(), "the aborted batch stays, empty, over its offsets");
            assertEquals(0, at(batches, 8).records());
        }
    }

    /**
     * Without the aborted transactions the cleaner would have let the aborted b1 and d2 win over the committed a1 and
     * c2: the index is what tells them apart (the records look alike).
     */
    @Test
    void withoutTheIndexAbortedValuesWouldWin() throws IOException {
        try (Log log = open(tempDir.resolve("n-0"))) {
            fillInterleaved(log);
            new LogCleaner(1000, 1 << 20).clean(log, 0, 11, T0, RETENTION_MS, AbortedTransactions.NONE);
            assertEquals(Map.of(3L, "k1=b1", 4L, "k3=b3", 6L, "k4=p4", 8L, "k2=d2"), records(log));
        }
    }

    @Test
    void abortMarkersGetAHorizonOnTheFirstPassAndGoAfterIt() throws IOException {
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        try (Log log = open(tempDir.resolve("a-0"))) {
            fillInterleaved(log);
            LogCleaner.Outcome first = cleaner.clean(log, 0, 11, T0, RETENTION_MS, INTERLEAVED);
            List<Seen> batches = batches(log);
            assertEquals(new Seen(5, true, 1, T0 + RETENTION_MS), at(batches, 5), "abort marker, horizon set");
            assertEquals(new Seen(9, true, 1, T0 + RETENTION_MS), at(batches, 9));
            // The commit markers' transactions still hold a1 and c2.
            assertEquals(new Seen(2, true, 1, -1), at(batches, 2));
            assertEquals(new Seen(10, true, 1, -1), at(batches, 10));
            assertEquals(T0 + RETENTION_MS, first.earliestMarkerHorizonMs());
            assertEquals(0, first.markersRemoved());

            LogCleaner.Outcome again = cleaner.clean(log, 0, 11, T0, RETENTION_MS, INTERLEAVED);
            assertEquals(0, again.segmentsRewritten(), "the same pass again is a fixed point");
            LogCleaner.Outcome atHorizon = cleaner.clean(log, 11, 11, T0 + RETENTION_MS, RETENTION_MS, INTERLEAVED);
            assertEquals(0, atHorizon.segmentsRewritten(), "a marker stays until its horizon has passed");

            LogCleaner.Outcome after = cleaner.clean(log, 11, 11, T0 + RETENTION_MS + 1, RETENTION_MS, INTERLEAVED);
            assertEquals(2, after.markersRemoved());
            batches = batches(log);
            assertEquals(new Seen(5, true, 0, T0 + RETENTION_MS), at(batches, 5), "gone, its offset kept in place");
            assertEquals(new Seen(9, true, 0, T0 + RETENTION_MS), at(batches, 9));
            assertEquals(new Seen(2, true, 1, -1), at(batches, 2));
            assertEquals(-1, after.earliestMarkerHorizonMs());
            assertEquals(Map.of(0L, "k1=a1", 6L, "k4=p4", 7L, "k2=c2"), records(log));
            assertEquals(0, cleaner.clean(log, 11, 11, T0 + RETENTION_MS + 1, RETENTION_MS, INTERLEAVED)
                    .segmentsRewritten());
        }
        try (Log reopened = open(tempDir.resolve("a-0"))) {
            assertEquals(11, reopened.logEndOffset());
            assertEquals(Map.of(0L, "k1=a1", 6L, "k4=p4", 7L, "k2=c2"), records(reopened));
        }
    }

    /**
     * A commit marker stays while a record of its transaction does; the pass that compacts the last one away gives it
     * its horizon, and a pass after the horizon removes it.
     */
    @Test
    void aCommitMarkerGoesOnceEveryRecordOfItsTransactionIsCompactedAway() throws IOException {
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        try (Log log = open(tempDir.resolve("c-0"))) {
            data(log, P1, "k1=a1", "k2=a2");     // 0-1
            marker(log, P1, true);               // 2
            plain(log, "k1=x1");                 // 3
            log.roll();
            LogCleaner.Outcome partly = cleaner.clean(log, 0, 4, T0, RETENTION_MS, AbortedTransactions.NONE);
            assertEquals(1, partly.recordsRemoved());
            assertEquals(new Seen(2, true, 1, -1), at(batches(log), 2), "k2=a2 is left");

            plain(log, "k2=x2");                 // 4
            log.roll();
            LogCleaner.Outcome emptied = cleaner.clean(log, 4, 5, T0 + 10, RETENTION_MS, AbortedTransactions.NONE);
            assertEquals(1, emptied.recordsRemoved());
            assertEquals(new Seen(2, true, 1, T0 + 10 + RETENTION_MS), at(batches(log), 2));
            assertEquals(Map.of(3L, "k1=x1", 4L, "k2=x2"), records(log));

            LogCleaner.Outcome gone = cleaner.clean(log, 5, 5, T0 + 11 + RETENTION_MS, RETENTION_MS,
                    AbortedTransactions.NONE);
            assertEquals(1, gone.markersRemoved());
            assertEquals(new Seen(2, true, 0, T0 + 10 + RETENTION_MS), at(batches(log), 2));
            assertEquals(5, log.logEndOffset());
        }
    }

    /** Records at or above the pass's bound (the last stable offset) are left as they are, open or not. */
    @Test
    void nothingAtOrAboveTheBoundIsTouched() throws IOException {
        try (Log log = open(tempDir.resolve("b-0"))) {
            fillInterleaved(log);
            LogCleaner.Outcome outcome = new LogCleaner(1000, 1 << 20).clean(log, 0, 6, T0, RETENTION_MS,
                    INTERLEAVED);
            assertEquals(1, outcome.segmentsCleaned());
            assertEquals(6, outcome.transactionsCleanedUpTo());
            // Only the first segment: b1 and b3 go, d2 (at 8, above the bound) stays, and so does a2 (its newer c2
            // lies above the bound).
            assertEquals(Map.of(0L, "k1=a1", 1L, "k2=a2", 6L, "k4=p4", 7L, "k2=c2", 8L, "k2=d2"), records(log));
        }
    }

    /** A key map too small for the dirty keys compacts nothing, but aborted records and markers are settled. */
    @Test
    void aFullKeyMapStillRemovesAbortedRecords() throws IOException {
        try (Log log = open(tempDir.resolve("f-0"))) {
            fillInterleaved(log);
            LogCleaner.Outcome outcome = new LogCleaner(1, 1 << 20).clean(log, 0, 11, T0, RETENTION_MS,
                    INTERLEAVED);
            assertTrue(outcome.keyMapFull());
            assertEquals(0, outcome.segmentsCleaned());
            assertEquals(-1, outcome.cleanedUpTo());
            assertEquals(11, outcome.transactionsCleanedUpTo());
            assertEquals(3, outcome.abortedRecordsRemoved());
            assertEquals(Map.of(0L, "k1=a1", 1L, "k2=a2", 6L, "k4=p4", 7L, "k2=c2"), records(log));
            assertEquals(T0 + RETENTION_MS, at(batches(log), 5).deleteHorizonMs());
        }
    }

    /**
     * Two replicas running the same passes hold the same bytes; one of them then replays the earlier passes (a
     * restart from a snapshot taken before them): nothing changes.
     */
    @Test
    void replicasHoldTheSameBytesAndReplayedPassesChangeNothing() throws IOException {
        LogCleaner cleaner = new LogCleaner(1000, 1 << 20);
        Path a = tempDir.resolve("r1-0");
        Path b = tempDir.resolve("r2-0");
        try (Log first = open(a); Log second = open(b)) {
            for (Log log : List.of(first, second)) {
                fillInterleaved(log);
                cleaner.clean(log, 0, 6, T0, RETENTION_MS, INTERLEAVED);
                cleaner.clean(log, 6, 11, T0 + 5, RETENTION_MS, INTERLEAVED);
                cleaner.clean(log, 11, 11, T0 + 10 + RETENTION_MS, RETENTION_MS, INTERLEAVED);
            }
            assertEquals(0, at(batches(second), 5).records(), "the first abort marker is gone");
            for (LogCleaner.Outcome replayed : List.of(cleaner.clean(second, 0, 6, T0, RETENTION_MS, INTERLEAVED),
                    cleaner.clean(second, 6, 11, T0 + 5, RETENTION_MS, INTERLEAVED))) {
                assertEquals(0, replayed.segmentsRewritten());
            }
        }
        Map<String, byte[]> filesA = segmentFiles(a);
        Map<String, byte[]> filesB = segmentFiles(b);
        assertEquals(filesA.keySet(), filesB.keySet());
        filesA.forEach((name, bytes) -> assertArrayEquals(bytes, filesB.get(name), name));
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
