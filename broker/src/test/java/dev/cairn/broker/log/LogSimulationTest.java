package dev.cairn.broker.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.io.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model-based simulation of {@link Log} over {@link SimulatedFileIo} (style.md point 13). Each sequence is a
 * seeded random mix of append, read, roll, flush, tick, retention, truncation, reopen, crash (losing unflushed
 * bytes, tearing the last write) and disk-full episodes. After every step the log is compared with a plain
 * in-memory model: same log start and end offsets, and reads byte-identical to the model; after a crash,
 * nothing below the flushed offset is lost.
 *
 * <p>A failure prints the seed; replay it with {@code -Dsim.seed=<seed>} (and optionally
 * {@code -Dsim.sequences=1}).
 */
@Tag("simulation")
class LogSimulationTest {
    private static final Path DIR = Path.of("/sim/topic-0");
    private static final int STEPS_PER_SEQUENCE = 250;
    /** Coverage counters, printed after the run: crashes, crashes inside an operation, injected faults. */
    private static final Map<String, Integer> EVENTS = new TreeMap<>();

    private static void count(String event) {
        EVENTS.merge(event, 1, Integer::sum);
    }

    @Test
    void randomSequencesMatchTheModel() {
        String fixed = System.getProperty("sim.seed");
        int sequences = Integer.getInteger("sim.sequences", fixed == null ? 300 : 1);
        long firstSeed = fixed == null ? 0x5EED_0000L : Long.parseLong(fixed);
        for (int i = 0; i < sequences; i++) {
            long seed = firstSeed + i;
            try {
                new Sequence(seed).run();
            } catch (AssertionError | RuntimeException | IOException | InvariantViolation e) {
                throw new AssertionError("simulation failed; replay with -Dsim.seed=" + seed + ": " + e, e);
            }
        }
        System.out.println("LogSimulationTest: " + sequences + " sequences from seed " + firstSeed + ", events "
                + EVENTS);
        assertTrue(EVENTS.getOrDefault("crash midway", 0) > 0 || sequences < 50, "no crash inside an operation");
    }

    /** One batch of the model. */
    private record Batch(long baseOffset, long lastOffset, long maxTimestamp, byte[] bytes) {
    }

    private static final class Sequence {
        private final long seed;
        private final Random random;
        private final SimulatedFileIo io;
        private final LogConfig config;
        private final List<Batch> model = new ArrayList<>();
        private long modelStart;
        private long modelEnd;
        private long nowMs = 1_000_000;
        private Log log;
        private final StringBuilder trace = new StringBuilder();

        Sequence(long seed) {
            this.seed = seed;
            this.random = new Random(SimulatedFileIo.mix(seed));
            this.io = new SimulatedFileIo(seed + 1);
            this.config = LogConfig.defaults()
                    .withSegmentBytes(200 + random.nextInt(3000))
                    .withIndexIntervalBytes(random.nextInt(600))
                    .withSegmentIndexBytes(8 * (1 + random.nextInt(12)))
                    .withSegmentMs(1000 + random.nextInt(10_000))
                    .withRetention(random.nextBoolean() ? -1 : 5_000 + random.nextInt(50_000),
                            random.nextBoolean() ? -1 : 1000 + random.nextInt(10_000))
                    .withFlushInterval(random.nextInt(4) == 0 ? 1 + random.nextInt(20) : Long.MAX_VALUE,
                            random.nextBoolean() ? 100 + random.nextInt(5000) : Long.MAX_VALUE)
                    .validate();
        }

        void run() throws IOException {
            log = Log.open(io, DIR, config);
            try {
                for (int step = 0; step < STEPS_PER_SEQUENCE; step++) {
                    step();
                    check();
                }
                log.close();
                log = Log.open(io, DIR, config);
                check();
                log.verify();
            } catch (AssertionError | RuntimeException | IOException e) {
                throw new AssertionError(e + "\nconfig " + config + "\ntrace (last steps):\n" + tail(), e);
            } finally {
                try {
                    log.close();
                } catch (RuntimeException ignored) {
                    // The failure above is what matters.
                }
            }
        }

        private String tail() {
            int from = Math.max(0, trace.length() - 3000);
            return trace.substring(from);
        }

        private void step() throws IOException {
            int dice = random.nextInt(100);
            if (dice < 45) {
                append();
            } else if (dice < 60) {
                read();
            } else if (dice < 64) {
                trace("roll");
                log.roll();
            } else if (dice < 68) {
                trace("flush");
                log.flush();
            } else if (dice < 75) {
                nowMs += random.nextInt(3000);
                trace("tick " + nowMs);
                log.tick(nowMs);
            } else if (dice < 79) {
                retention();
            } else if (dice < 83) {
                truncate();
            } else if (dice < 85) {
                trace("reopen");
                log.close();
                log = Log.open(io, DIR, config);
            } else if (dice < 90) {
                crash();
            } else if (dice < 93) {
                crashMidOperation();
            } else if (dice < 95) {
                restart();
            } else if (dice < 98) {
                diskFull();
            } else {
                ioError();
            }
        }

        private void trace(String event) {
            trace.append(event).append(" -> [").append(modelStart).append(", ").append(modelEnd).append(")\n");
        }

        private ByteBuffer nextBatch() {
            int records = 1 + random.nextInt(5);
            long timestamp = nowMs - random.nextInt(20_000);
            return TestBatches.batch(modelEnd, records, timestamp, random.nextInt(300), random.nextLong());
        }

        private void append() {
            ByteBuffer batch = nextBatch();
            long base = modelEnd;
            long last = base + batch.getInt(23);
            long end = log.append(batch.duplicate());
            model.add(new Batch(base, last, batch.getLong(35), TestBatches.bytes(batch)));
            modelEnd = last + 1;
            assertEquals(modelEnd, end);
            trace("append " + base + ".." + last);
        }

        private void read() throws IOException {
            long fetch = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
            int maxBytes = random.nextInt(2000);
            long upTo = random.nextInt(4) == 0 ? modelStart + random.nextInt((int) (modelEnd - modelStart + 2))
                    : Long.MAX_VALUE;
            trace("read " + fetch + " max " + maxBytes + " upTo " + upTo);
            checkRead(fetch, maxBytes, upTo);
        }

        private void retention() {
            nowMs += random.nextInt(20_000);
            trace("deleteExpired " + nowMs);
            List<Long> before = log.segmentBaseOffsets();
            int deleted = log.deleteExpired(nowMs);
            long start = log.logStartOffset();
            assertEquals(deleted == 0 ? before.get(0) : before.get(deleted), start);
            assertTrue(start <= modelEnd);
            model.removeIf(b -> b.baseOffset < start);
            modelStart = start;
            if (config.retentionBytes() >= 0 && log.segmentBaseOffsets().size() > 1) {
                List<Long> bases = log.segmentBaseOffsets();
                long firstSize = 0;
                for (Batch b : model) {
                    if (b.baseOffset < bases.get(1)) {
                        firstSize += b.bytes.length;
                    }
                }
                assertTrue(log.sizeBytes() - firstSize < config.retentionBytes(), "retention.bytes not applied");
            }
        }

        private void truncate() {
            long offset = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
            if (random.nextInt(8) == 0) {
                offset = Math.max(0, modelStart - random.nextInt(5));
            }
            trace("truncateTo " + offset);
            long end = log.truncateTo(offset);
            if (offset >= modelEnd) {
                assertEquals(modelEnd, end);
                return;
            }
            if (offset <= modelStart) {
                model.clear();
                modelStart = offset;
                modelEnd = offset;
            } else {
                final long target = offset;
                model.removeIf(b -> b.lastOffset >= target);
                modelEnd = model.isEmpty() ? modelStart : model.get(model.size() - 1).lastOffset + 1;
            }
            assertEquals(modelEnd, end);
        }

        private void crash() {
            long flushed = log.flushedOffset();
            trace("crash (flushed " + flushed + ")");
            count("crash");
            io.crash();
            log = Log.open(io, DIR, config);
            long end = log.logEndOffset();
            assertTrue(end >= flushed, "flushed offsets lost: log ends at " + end + ", flushed " + flushed);
            assertTrue(end <= modelEnd, "log grew in a crash: " + end + " > " + modelEnd);
            model.removeIf(b -> b.lastOffset >= end);
            long modelLast = model.isEmpty() ? modelStart : model.get(model.size() - 1).lastOffset + 1;
            assertEquals(modelLast, end, "recovered log does not end on a model batch boundary");
            modelEnd = end;
            trace("recovered");
        }

        /**
         * A crash in the middle of an append, roll, flush, truncation or retention pass (after a random number
         * of its file mutations), or right after it. The recovered log must be a contiguous run of whole
         * batches of what the log held before (or after) the operation, and keep everything that had been
         * flushed (for a truncation: everything flushed below the truncation point).
         */
        private void crashMidOperation() {
            List<Batch> full = new ArrayList<>(model);
            long guaranteed = log.flushedOffset();
            int which = random.nextInt(6);
            long restartAt = -1;
            if (which == 3 && modelEnd == modelStart) {
                which = 1;
            }
            io.crashAfterMutations(1 + random.nextInt(12));
            trace("crash during operation " + which + " (flushed " + guaranteed + ")");
            try {
                switch (which) {
                    case 0 -> {
                        ByteBuffer batch = nextBatch();
                        full.add(new Batch(modelEnd, modelEnd + batch.getInt(23), batch.getLong(35),
                                TestBatches.bytes(batch)));
                        log.append(batch.duplicate());
                    }
                    case 1 -> log.roll();
                    case 2 -> log.flush();
                    case 3 -> {
                        long offset = modelStart + 1 + (long) (random.nextDouble() * (modelEnd - modelStart));
                        long truncatedEnd = modelStart;
                        for (Batch b : model) {
                            if (b.lastOffset < offset) {
                                truncatedEnd = b.lastOffset + 1;
                            }
                        }
                        guaranteed = Math.min(guaranteed, truncatedEnd);
                        trace("truncateTo " + offset);
                        log.truncateTo(offset);
                    }
                    case 4 -> {
                        nowMs += random.nextInt(20_000);
                        log.deleteExpired(nowMs);
                    }
                    default -> {
                        restartAt = modelEnd + 1 + random.nextInt(100);
                        trace("truncateFullyAndStartAt " + restartAt);
                        log.truncateFullyAndStartAt(restartAt);
                    }
                }
                io.cancelCrash();
                io.crash();
                trace("completed, crashed after");
                count("crash right after");
            } catch (SimulatedFileIo.SimulatedCrash crash) {
                trace("crashed midway");
                count("crash midway");
            }
            log = Log.open(io, DIR, config);
            long start = log.logStartOffset();
            long end = log.logEndOffset();
            if (restartAt >= 0 && start == restartAt) {
                // The restart is atomic: it either happened completely or not at all.
                assertEquals(restartAt, end, "a restarted log is empty");
                model.clear();
                modelStart = restartAt;
                modelEnd = restartAt;
                return;
            }
            assertTrue(start >= modelStart, "log start went back from " + modelStart + " to " + start);
            assertTrue(end >= guaranteed, "flushed offsets lost: log ends at " + end + ", guaranteed " + guaranteed);
            model.clear();
            boolean startFound = start == end;
            for (Batch b : full) {
                startFound |= b.baseOffset == start;
                if (b.baseOffset >= start && b.lastOffset < end) {
                    model.add(b);
                }
            }
            assertTrue(startFound, "log start " + start + " is not a batch boundary");
            long modelLast = model.isEmpty() ? start : model.get(model.size() - 1).lastOffset + 1;
            assertEquals(modelLast, end, "recovered log does not end on a batch boundary");
            modelStart = start;
            modelEnd = end;
        }

        private void restart() {
            long start = modelEnd + random.nextInt(100);
            trace("truncateFullyAndStartAt " + start);
            log.truncateFullyAndStartAt(start);
            model.clear();
            modelStart = start;
            modelEnd = start;
        }

        private void diskFull() throws IOException {
            io.setCapacityBytes(io.usedBytes() + random.nextInt(400));
            trace("disk full");
            for (int i = 0; i < 4; i++) {
                long before = log.logEndOffset();
                try {
                    append();
                } catch (StorageException e) {
                    assertTrue(e.isDiskFull(), e.getMessage());
                    assertEquals(before, log.logEndOffset());
                    assertFalse(log.isOffline());
                    trace("append failed: disk full");
                    count("append failed: disk full");
                }
                check();
            }
            io.setCapacityBytes(Long.MAX_VALUE);
        }

        /**
         * EIO on a write: the append fails and the log is unchanged. EIO on an fsync: the log goes offline
         * (fsyncgate) and only a reopen, which recovers, brings it back.
         */
        private void ioError() throws IOException {
            boolean onForce = random.nextBoolean();
            trace(onForce ? "EIO on next fsync" : "EIO on next write");
            io.failNext(onForce ? SimulatedFileIo.Operation.FORCE : SimulatedFileIo.Operation.WRITE, 1);
            long before = log.logEndOffset();
            ByteBuffer batch = nextBatch();
            StorageException error = null;
            try {
                log.append(batch.duplicate());
            } catch (StorageException e) {
                error = e;
            }
            if (log.logEndOffset() > before) {
                // The batch is in the log even if a flush after it failed.
                model.add(new Batch(before, log.logEndOffset() - 1, batch.getLong(35), TestBatches.bytes(batch)));
                modelEnd = log.logEndOffset();
            }
            if (error == null && onForce) {
                try {
                    log.roll();
                    log.flush();
                } catch (StorageException e) {
                    error = e;
                }
            }
            SimulatedFileIo.Operation operation = onForce ? SimulatedFileIo.Operation.FORCE
                    : SimulatedFileIo.Operation.WRITE;
            if (error == null) {
                assertEquals(1, io.pendingFailures(operation), "an injected EIO fired but did not surface");
                io.failNext(operation, 0);
                return;
            }
            assertEquals(0, io.pendingFailures(operation));
            assertFalse(error.isDiskFull(), error.getMessage());
            trace("failed: " + error.getMessage());
            count(onForce ? "EIO on fsync" : "EIO on write");
            if (onForce) {
                assertTrue(log.isOffline(), "a failed fsync must take the log offline");
                assertThrows(StorageException.class, () -> log.roll());
                crash();
            } else {
                assertEquals(before, log.logEndOffset());
                assertFalse(log.isOffline());
            }
        }

        private void check() throws IOException {
            assertEquals(modelStart, log.logStartOffset(), "log start offset");
            assertEquals(modelEnd, log.logEndOffset(), "log end offset");
            assertTrue(log.flushedOffset() <= modelEnd);
            readEverything();
            for (int i = 0; i < 3; i++) {
                long fetch = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
                checkRead(fetch, random.nextInt(1500), Long.MAX_VALUE);
            }
            if (modelStart > 0) {
                assertThrows(OffsetOutOfRangeException.class, () -> log.read(modelStart - 1, 100, Long.MAX_VALUE));
            }
        }

        /** Reads the whole log with small fetches and compares it with the model, batch by batch. */
        private void readEverything() throws IOException {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (Batch b : model) {
                expected.write(b.bytes);
            }
            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            long fetch = modelStart;
            int guard = 0;
            while (fetch < modelEnd) {
                LogSlice slice = log.read(fetch, 700, Long.MAX_VALUE);
                assertFalse(slice.isEmpty(), "empty read at " + fetch + " below end " + modelEnd);
                assertEquals(fetch, slice.firstOffset());
                actual.write(TestBatches.bytes(slice.readBytes()));
                fetch = slice.nextOffset();
                assertTrue(++guard <= model.size(), "read loop does not advance");
            }
            assertArrayEquals(expected.toByteArray(), actual.toByteArray(), "log content differs from the model");
        }

        private void checkRead(long fetch, int maxBytes, long upTo) throws IOException {
            LogSlice slice = log.read(fetch, maxBytes, upTo);
            long limit = Math.min(upTo, modelEnd);
            int first = -1;
            for (int i = 0; i < model.size(); i++) {
                if (model.get(i).lastOffset >= fetch) {
                    first = i;
                    break;
                }
            }
            if (first < 0 || model.get(first).lastOffset >= limit) {
                assertTrue(slice.isEmpty(), "expected empty read at " + fetch + ", got " + slice);
                return;
            }
            // A read returns batches of one segment only (as Kafka's LogSegment.read does).
            long segmentEnd = Long.MAX_VALUE;
            for (long base : log.segmentBaseOffsets()) {
                if (base > model.get(first).baseOffset) {
                    segmentEnd = base;
                    break;
                }
            }
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            int total = 0;
            long next = fetch;
            for (int i = first; i < model.size(); i++) {
                Batch b = model.get(i);
                if (b.lastOffset >= limit || b.baseOffset >= segmentEnd
                        || (i > first && total + b.bytes.length > maxBytes)) {
                    break;
                }
                expected.write(b.bytes);
                total += b.bytes.length;
                next = b.lastOffset + 1;
            }
            assertEquals(model.get(first).baseOffset, slice.firstOffset(), "first offset of " + slice);
            assertEquals(next, slice.nextOffset(), "next offset of " + slice);
            assertArrayEquals(expected.toByteArray(), TestBatches.bytes(slice.readBytes()), "bytes of " + slice);
        }
    }
}
