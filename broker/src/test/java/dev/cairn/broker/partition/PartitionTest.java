package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.log.TestBatches;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The partition core: offsets from the log prefix, KIP-98 idempotence, snapshot + replay determinism. */
class PartitionTest {
    private static final Path DIR = Path.of("/data/orders-0");
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final LogConfig config = LogConfig.defaults().withSegmentBytes(4096);
    private final InMemoryOffsetStore offsets = new InMemoryOffsetStore(io);

    private Partition open() {
        return new Partition("orders", 0, Log.open(io, DIR, config), offsets);
    }

    /** A client batch (base offset 0) of {@code records} records, optionally idempotent. */
    static ByteBuffer clientBatch(int records, long producerId, short epoch, int baseSequence) {
        ByteBuffer batch = TestBatches.batch(0, records, 1_000L, 300, records * 31L + baseSequence);
        batch.putLong(batch.position() + RecordBatchDescriptor.PRODUCER_ID_OFFSET, producerId);
        batch.putShort(batch.position() + RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET, epoch);
        batch.putInt(batch.position() + RecordBatchDescriptor.BASE_SEQUENCE_OFFSET, baseSequence);
        CRC32C crc = new CRC32C();
        ByteBuffer covered = batch.duplicate();
        covered.position(batch.position() + RecordBatchDescriptor.ATTRIBUTES_OFFSET);
        crc.update(covered);
        batch.putInt(batch.position() + RecordBatchDescriptor.CRC_OFFSET, (int) crc.getValue());
        assertTrue(RecordBatch.of(batch).isChecksumValid());
        return batch;
    }

    private static Command.Append append(ByteBuffer batch) {
        // Through the codec, as through the Raft log.
        return (Command.Append) CommandCodec.decodeCommand(CommandCodec.encode(new Command.Append(batch, 5_000L)));
    }

    private static byte[] readAll(Partition partition) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        long offset = partition.logStartOffset();
        while (offset < partition.highWatermark()) {
            LogSlice slice = partition.read(offset, Integer.MAX_VALUE);
            ByteBuffer bytes = slice.readBytes();
            all.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            offset = slice.nextOffset();
        }
        return all.toByteArray();
    }

    @Test
    void offsetsAreDenseAndTheLeaderEpochIsStamped() throws IOException {
        Partition partition = open();
        long raftIndex = 0;
        for (int i = 0; i < 50; i++) {
            Result.Appended appended = assertInstanceOf(Result.Appended.class,
                    partition.apply(++raftIndex, 7, append(clientBatch(3, -1, (short) -1, -1))));
            assertEquals(i * 3L, appended.baseOffset());
            assertEquals(i * 3L + 2, appended.lastOffset());
        }
        assertEquals(150, partition.highWatermark());
        LogSlice slice = partition.read(4, 1);
        RecordBatch first = RecordBatch.of(slice.readBytes());
        assertEquals(3, first.baseOffset(), "the batch containing the fetch offset is returned whole");
        assertEquals(7, first.partitionLeaderEpoch());
        assertTrue(first.isChecksumValid(), "offset assignment leaves the CRC valid");
    }

    @Test
    void offsetCommitsAreStoredAndAReplayedCommitIsIgnored() {
        Partition partition = open();
        Command commit = CommandCodec.decodeCommand(CommandCodec.encode(
                new Command.CommitOffset("g1", 42, 3, "meta", 99L)));
        assertEquals(Result.OFFSET_COMMITTED, partition.apply(1, 1, commit));
        assertEquals(42, partition.committedOffset("g1").orElseThrow().offset());
        assertEquals("meta", partition.committedOffset("g1").orElseThrow().metadata());
        assertEquals(3, partition.committedOffset("g1").orElseThrow().leaderEpoch(), "the committed leader epoch");
        partition.apply(2, 1, new Command.CommitOffset("g1", 50, 3, null, 100L));
        assertEquals(50, partition.committedOffset("g1").orElseThrow().offset());
        assertTrue(partition.committedOffset("other").isEmpty());
    }

    /** DeleteGroups and OffsetDelete (issue 19): one group's offset goes, others stay, a second delete finds none. */
    @Test
    void offsetDeletionRemovesOneGroupsOffset() {
        Partition partition = open();
        partition.apply(1, 1, new Command.CommitOffset("g1", 42, 3, "meta", 99L));
        partition.apply(2, 1, new Command.CommitOffset("g2", 7, 3, null, 99L));
        Command delete = CommandCodec.decodeCommand(CommandCodec.encode(new Command.DeleteOffset("g1")));
        assertEquals(new Result.OffsetDeleted(true), partition.apply(3, 1, delete));
        assertTrue(partition.committedOffset("g1").isEmpty());
        assertEquals(7, partition.committedOffset("g2").orElseThrow().offset());
        assertEquals(new Result.OffsetDeleted(false), partition.apply(4, 1, delete));
        partition.apply(5, 1, new Command.CommitOffset("g1", 50, 3, null, 100L));
        assertEquals(50, partition.committedOffset("g1").orElseThrow().offset(), "the group may commit again");
    }

    @Test
    void retriedIdempotentBatchGetsItsOriginalOffsetAndIsNotAppendedAgain() {
        Partition partition = open();
        ByteBuffer first = clientBatch(5, 42, (short) 0, 0);
        Result.Appended original = assertInstanceOf(Result.Appended.class, partition.apply(1, 1, append(first)));
        partition.apply(2, 1, append(clientBatch(2, 42, (short) 0, 5)));
        Result.Appended retry = assertInstanceOf(Result.Appended.class,
                partition.apply(3, 1, append(clientBatch(5, 42, (short) 0, 0))));
        assertTrue(retry.duplicate());
        assertEquals(original.baseOffset(), retry.baseOffset());
        assertEquals(7, partition.highWatermark(), "the duplicate was not appended");
        Result.Rejected gap = assertInstanceOf(Result.Rejected.class,
                partition.apply(4, 1, append(clientBatch(1, 42, (short) 0, 9))));
        assertEquals(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, gap.error());
        assertFalse(partition.apply(5, 1, append(clientBatch(1, 42, (short) 0, 7))) instanceof Result.Rejected);
    }

    @Test
    void timeBasedRollingGoesByBatchTimestampsNotByAppendTime() throws IOException {
        LogConfig daily = LogConfig.defaults().withSegmentMs(86_400_000L);
        Partition partition = new Partition("orders", 0, Log.open(io, DIR, daily), offsets);
        long longAfter = 30L * 86_400_000L;
        // Old timestamps (a replay) appended a month later: one segment, not one per append.
        for (int i = 1; i <= 5; i++) {
            partition.apply(i, 1, new Command.Append(TestBatches.batch(0, 1, 1_000L, 300, i), longAfter));
        }
        assertEquals(1, segmentFiles());
        // A batch stamped more than segment.ms after the segment's first one rolls it.
        partition.apply(6, 1, new Command.Append(TestBatches.batch(0, 1, 1_000L + 86_400_001L, 300, 6), longAfter));
        partition.apply(7, 1, new Command.Append(TestBatches.batch(0, 1, 1_000L + 86_400_001L, 300, 7), longAfter));
        assertEquals(2, segmentFiles());
    }

    private long segmentFiles() throws IOException {
        return io.list(DIR).stream().filter(p -> p.toString().endsWith(".log")).count();
    }

    @Test
    void snapshotThenReplayRebuildsTheSameBytes() throws IOException {
        List<Command> commands = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            commands.add(append(i % 2 == 0 ? clientBatch(2, -1, (short) -1, -1)
                    : clientBatch(3, 9, (short) 0, 3 * (i / 2))));
        }
        Partition partition = open();
        PartitionSnapshot snapshot = null;
        for (int i = 0; i < commands.size(); i++) {
            partition.apply(i + 1, 2, commands.get(i));
            if (i == 19) {
                snapshot = partition.snapshot();
            }
        }
        byte[] expected = readAll(partition);
        long end = partition.highWatermark();
        assertTrue(io.list(DIR).stream().filter(p -> p.toString().endsWith(".log")).count() > 1,
                "the test spans several segments");
        partition.close();

        // Restart: the log holds more than the snapshot; restore truncates back and the replay re-appends.
        Partition reopened = open();
        reopened.restore(20, snapshot);
        assertEquals(snapshot.logEndOffset(), reopened.highWatermark());
        reopened.claimWriter();
        for (int i = 20; i < commands.size(); i++) {
            reopened.apply(i + 1, 2, commands.get(i));
        }
        assertEquals(end, reopened.highWatermark());
        assertArrayEquals(expected, readAll(reopened));
        // A retry of the last idempotent batch is still recognised after restore and replay.
        ByteBuffer lastIdempotent = clientBatch(3, 9, (short) 0, 3 * 19);
        assertTrue(assertInstanceOf(Result.Appended.class,
                reopened.apply(commands.size() + 1, 2, append(lastIdempotent))).duplicate());
    }

    /** DeleteRecords (issue 19): the start moves, survives a snapshot restore, and -1 means the high watermark. */
    @Test
    void deleteRecordsMovesTheStartThroughSnapshotsAndReplay() {
        Partition partition = open();
        for (int i = 1; i <= 10; i++) {
            partition.apply(i, 1, append(clientBatch(2, -1, (short) -1, -1)));
        }
        assertEquals(new Result.Retained(7, 0), partition.apply(11, 1, new Command.DeleteRecords(7)));
        assertEquals(7, partition.logStartOffset());
        Result tooFar = partition.apply(12, 1, new Command.DeleteRecords(21));
        assertEquals(ErrorCode.OFFSET_OUT_OF_RANGE, assertInstanceOf(Result.Rejected.class, tooFar).error());
        assertEquals(7, partition.logStartOffset(), "a refused deletion changes nothing");
        PartitionSnapshot snapshot = partition.snapshot();
        partition.apply(13, 1, append(clientBatch(2, -1, (short) -1, -1)));
        partition.apply(14, 1, new Command.DeleteRecords(Command.DeleteRecords.HIGH_WATERMARK));
        assertEquals(22, partition.logStartOffset());
        partition.close();

        Partition reopened = open();
        reopened.restore(12, snapshot);
        assertEquals(7, reopened.logStartOffset(), "the snapshot's start, not the first segment's");
        reopened.claimWriter();
        reopened.apply(13, 1, append(clientBatch(2, -1, (short) -1, -1)));
        reopened.apply(14, 1, new Command.DeleteRecords(Command.DeleteRecords.HIGH_WATERMARK));
        assertEquals(22, reopened.logStartOffset(), "the replayed deletion");
    }

    /** A keyed batch: {@code count} records from {@code firstKey}, keys cycling over {@code keys}, one tombstone. */
    private static ByteBuffer keyedBatch(int round, int count, int keys) {
        dev.cairn.protocol.record.RecordBatchBuilder builder = new dev.cairn.protocol.record.RecordBatchBuilder(
                dev.cairn.protocol.record.compression.CompressionType.NONE);
        for (int i = 0; i < count; i++) {
            int key = (round * count + i) % keys;
            byte[] value = key == 0 && round % 7 == 6 ? null : ("value-" + round + "-" + i + "-" + "x".repeat(40))
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            builder.append(1_000L + round, ("key-" + key).getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
        }
        return builder.build();
    }

    /** Offset to "key=value" (value "null" for a tombstone) of every record the partition serves. */
    private static java.util.TreeMap<Long, String> records(Partition partition) throws IOException {
        java.util.TreeMap<Long, String> records = new java.util.TreeMap<>();
        dev.cairn.protocol.record.RecordCursor cursor = new dev.cairn.protocol.record.RecordCursor();
        ByteBuffer all = ByteBuffer.wrap(readAll(partition));
        while (all.hasRemaining()) {
            RecordBatch batch = RecordBatch.of(all.slice());
            cursor.reset(batch);
            while (cursor.next()) {
                ByteBuffer value = cursor.value();
                records.put(cursor.offset(), java.nio.charset.StandardCharsets.UTF_8.decode(cursor.key()) + "="
                        + (value == null ? "null" : java.nio.charset.StandardCharsets.UTF_8.decode(value)));
            }
            all.position(all.position() + batch.sizeInBytes());
        }
        return records;
    }

    /**
     * Log compaction (issue 19): the leader's policy asks for a pass once the dirty ratio is reached; applying it
     * leaves the latest record per key at its offset; a restart from a snapshot taken before the pass truncates
     * into a compacted segment, replays, and serves the same records at the same offsets.
     */
    @Test
    void compactionKeepsTheLatestRecordPerKeyAndSurvivesARestartReplay() throws IOException {
        LogConfig broker = LogConfig.defaults();
        Map<String, String> topic = Map.of("cleanup.policy", "compact", "segment.bytes", "4096",
                "delete.retention.ms", "100000");
        List<Command> commands = new ArrayList<>();
        for (int round = 0; round < 60; round++) {
            commands.add(append(keyedBatch(round, 5, 12)));
        }
        Partition partition = new Partition("orders", 0, Log.open(io, DIR, broker.withTopicOverrides(topic)), offsets,
                broker, topic);
        PartitionSnapshot snapshot = null;
        for (int i = 0; i < commands.size(); i++) {
            partition.apply(i + 1, 1, commands.get(i));
            if (i == 29) {
                snapshot = partition.snapshot();
            }
        }
        java.util.TreeMap<Long, String> before = records(partition);
        long end = partition.highWatermark();

        Command.Compact pass = partition.compactionDue(2_000L).orElseThrow();
        assertEquals(0, pass.dirtyFromOffset());
        commands.add(pass);
        Result.Compacted compacted = assertInstanceOf(Result.Compacted.class,
                partition.apply(commands.size(), 1, pass));
        assertTrue(compacted.segmentsCleaned() > 1, compacted.toString());
        assertTrue(compacted.bytesAfter() < compacted.bytesBefore(), compacted.toString());
        java.util.TreeMap<Long, String> after = records(partition);
        assertEquals(end, partition.highWatermark(), "offsets never change");
        // Below the cleaned offset: the latest record of each key there, and nothing else; above it, everything.
        java.util.Map<String, Long> latestBelow = new java.util.HashMap<>();
        before.headMap(compacted.cleanedUpTo()).forEach((offset, record) ->
                latestBelow.put(record.substring(0, record.indexOf('=')), offset));
        java.util.TreeMap<Long, String> expected = new java.util.TreeMap<>(before.tailMap(compacted.cleanedUpTo()));
        latestBelow.values().forEach(offset -> expected.put(offset, before.get(offset)));
        assertEquals(expected, after);
        assertTrue(partition.compactionDue(2_000L).isEmpty(), "nothing dirty right after a pass");
        assertEquals(1, partition.compactionStats().passes());
        partition.close();

        Partition restarted = new Partition("orders", 0, Log.open(io, DIR, broker.withTopicOverrides(topic)),
                offsets, broker, topic);
        restarted.restore(30, snapshot);
        restarted.claimWriter();
        for (int i = 30; i < commands.size(); i++) {
            restarted.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(end, restarted.highWatermark());
        assertEquals(after, records(restarted), "the replayed partition serves the same records");

        // A peer that never restarted holds the same segment files, byte for byte.
        Path peerDir = Path.of("/data/orders-0-peer");
        Partition peer = new Partition("orders", 0, Log.open(io, peerDir, broker.withTopicOverrides(topic)),
                new InMemoryOffsetStore(io), broker, topic);
        for (int i = 0; i < commands.size(); i++) {
            peer.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(segmentBytes(peerDir), segmentBytes(DIR));
    }

    /** Each segment file's name and CRC-32C. */
    private Map<String, Long> segmentBytes(Path dir) throws IOException {
        Map<String, Long> files = new java.util.TreeMap<>();
        for (Path file : io.list(dir)) {
            if (file.toString().endsWith(".log")) {
                try (dev.cairn.broker.io.FileHandle handle = io.open(file)) {
                    ByteBuffer bytes = ByteBuffer.allocate((int) handle.size());
                    handle.readFully(bytes, 0);
                    CRC32C crc = new CRC32C();
                    crc.update(bytes.flip());
                    files.put(file.getFileName().toString(), crc.getValue());
                }
            }
        }
        return files;
    }

    /**
     * Reconfigure (issue 19): from its log position the log rolls by the new segment.bytes; the configs survive a
     * snapshot restore; a replay from empty starts over with the creation configs and switches at the same entry,
     * so the rebuilt log has the same segments; an invalid value is refused and changes nothing.
     */
    @Test
    void reconfigureSwitchesAtItsLogPositionAndSurvivesSnapshotsAndReplay() throws IOException {
        LogConfig broker = LogConfig.defaults();
        Map<String, String> created = Map.of("segment.bytes", "1048576");
        Map<String, String> altered = Map.of("segment.bytes", "4096", "retention.ms", "60000");
        List<Command> commands = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            commands.add(append(clientBatch(3, -1, (short) -1, -1)));
        }
        commands.add(new Command.Reconfigure(altered));
        for (int i = 0; i < 30; i++) {
            commands.add(append(clientBatch(3, -1, (short) -1, -1)));
        }
        Partition partition = new Partition("orders", 0, Log.open(io, DIR, broker.withTopicOverrides(created)),
                offsets, broker, created);
        for (int i = 0; i < 11; i++) {
            partition.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(1, segmentFiles(), "ten small batches fit the creation's 1 MiB segment");
        assertEquals(altered, partition.topicConfigs());
        PartitionSnapshot snapshot = partition.snapshot();
        assertEquals(altered, snapshot.topicConfigs());
        assertEquals(altered, PartitionSnapshot.decode(java.nio.ByteBuffer.wrap(snapshot.encode())).topicConfigs());
        for (int i = 11; i < commands.size(); i++) {
            partition.apply(i + 1, 1, commands.get(i));
        }
        long segments = segmentFiles();
        assertTrue(segments > 2, "4 KiB segments from the reconfiguration on: " + segments);
        byte[] expected = readAll(partition);
        Result refused = partition.apply(commands.size() + 1, 1,
                new Command.Reconfigure(Map.of("segment.bytes", "12")));
        assertEquals(ErrorCode.INVALID_CONFIG, assertInstanceOf(Result.Rejected.class, refused).error());
        assertEquals(altered, partition.topicConfigs(), "a refused reconfiguration changes nothing");
        partition.close();

        Partition restored = new Partition("orders", 0, Log.open(io, DIR, broker.withTopicOverrides(created)),
                offsets, broker, created);
        restored.restore(11, snapshot);
        assertEquals(altered, restored.topicConfigs(), "the snapshot's configs, not the creation's");
        restored.close();

        Partition replayed = new Partition("orders", 0, Log.open(io, DIR, broker.withTopicOverrides(created)),
                offsets, broker, created);
        replayed.restoreEmpty();
        assertEquals(created, replayed.topicConfigs());
        for (int i = 0; i < commands.size(); i++) {
            replayed.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(segments, segmentFiles(), "the replay rolls where the first run rolled");
        assertArrayEquals(expected, readAll(replayed));
    }

    /**
     * Leader epochs (KIP-320): recorded as batches are applied, kept in snapshots, rebuilt from the batches' headers
     * for a snapshot written before they were recorded, and trimmed with the log start.
     */
    @Test
    void leaderEpochsFollowTheLogThroughSnapshotsAndTrimming() {
        Partition partition = open();
        for (int i = 1; i <= 12; i++) {
            partition.apply(i, i <= 4 ? 1 : i <= 8 ? 4 : 6, append(clientBatch(2, -1, (short) -1, -1)));
        }
        assertEquals(new LeaderEpochs.EndOffset(1, 8), partition.endOffsetForEpoch(1, 7));
        assertEquals(new LeaderEpochs.EndOffset(4, 16), partition.endOffsetForEpoch(5, 7));
        assertEquals(new LeaderEpochs.EndOffset(6, 24), partition.endOffsetForEpoch(6, 7));
        PartitionSnapshot snapshot = partition.snapshot();
        assertEquals(Map.of(1, 0L, 4, 8L, 6, 16L), snapshot.leaderEpochs());
        PartitionSnapshot legacy = new PartitionSnapshot(snapshot.logStartOffset(), snapshot.logEndOffset(),
                snapshot.producerState(), snapshot.committedOffsets(), snapshot.segments());
        partition.close();

        for (PartitionSnapshot restoredFrom : List.of(snapshot, legacy)) {
            Partition reopened = open();
            reopened.restore(12, restoredFrom);
            assertEquals(new LeaderEpochs.EndOffset(4, 16), reopened.endOffsetForEpoch(4, 7),
                    restoredFrom == legacy ? "rebuilt from the log" : "from the snapshot");
            assertEquals(new LeaderEpochs.EndOffset(1, 8), reopened.endOffsetForEpoch(1, 7));
            reopened.claimWriter();
            reopened.apply(13, 7, new Command.DeleteRecords(10));
            assertEquals(new LeaderEpochs.EndOffset(4, 16), reopened.endOffsetForEpoch(4, 7));
            assertEquals(new LeaderEpochs.EndOffset(1, 10), reopened.endOffsetForEpoch(1, 7),
                    "epochs below the log start end where the log now starts");
            reopened.close();
        }
    }
}
