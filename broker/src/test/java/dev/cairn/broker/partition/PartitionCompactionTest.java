package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.TransactionIndex.Aborted;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CompressionType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Compaction of a transactionally written topic in the partition core (Kafka's cleaner: LogCleanerManager
 * {@code cleanableOffsets} stops at the last stable offset; {@code Cleaner} removes aborted records and rewrites the
 * transaction index without the transactions it emptied): records of an open transaction are never cleaned, aborted
 * records go and their transactions leave the index, read_committed and read_uncommitted reads of the cleaned log see
 * only committed values, the markers go after their delete horizon (the leader asks for that pass), and a replica
 * that restarts from a snapshot taken before the passes replays them to the same bytes and the same index.
 */
class PartitionCompactionTest {
    private static final Path DIR = Path.of("/data/changelog-0");
    private static final long T0 = 1_700_000_000_000L;
    private static final long RETENTION_MS = 1_000;
    private static final long P1 = 7_001;
    private static final long P2 = 7_002;
    private static final String PADDING = "-" + "x".repeat(150);
    private static final Map<String, String> TOPIC = Map.of("cleanup.policy", "compact", "segment.bytes", "1024",
            "delete.retention.ms", Long.toString(RETENTION_MS), "min.cleanable.dirty.ratio", "0.01");
    private final SimulatedFileIo io = new SimulatedFileIo(1);
    private final LogConfig broker = LogConfig.defaults();
    private final List<Command> commands = new ArrayList<>();
    private final Map<Long, Integer> sequences = new HashMap<>();

    private Partition open(Path dir) {
        return new Partition("changelog", 0, Log.open(io, dir, broker.withTopicOverrides(TOPIC)),
                new InMemoryOffsetStore(io), broker, TOPIC);
    }

    /** Applies a command as the next Raft entry, through the codec as the Raft log carries it. */
    private Result apply(Partition partition, Command command) {
        Command decoded = CommandCodec.decodeCommand(CommandCodec.encode(command));
        commands.add(decoded);
        return partition.apply(commands.size(), 1, decoded);
    }

    private void plain(Partition partition, String... records) {
        apply(partition, new Command.Append(batch(-1, records), T0));
    }

    /** A batch of the producer's transaction (opened by the first one). */
    private void data(Partition partition, long producerId, String... records) {
        ByteBuffer batch = batch(producerId, records);
        batch.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) (batch.getShort(
                RecordBatchDescriptor.ATTRIBUTES_OFFSET) | RecordBatchDescriptor.TRANSACTIONAL_MASK));
        RecordBatch.of(batch).writeChecksum();
        assertInstanceOf(Result.Appended.class, apply(partition, new Command.Append(batch, T0)));
    }

    private void marker(Partition partition, long producerId, boolean commit) {
        assertInstanceOf(Result.Appended.class, apply(partition,
                new Command.TxnMarker(producerId, (short) 0, commit, 0, T0)));
    }

    private ByteBuffer batch(long producerId, String... records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.NONE);
        if (producerId >= 0) {
            int sequence = sequences.getOrDefault(producerId, 0);
            builder.producerState(producerId, (short) 0, sequence);
            sequences.put(producerId, sequence + records.length);
        }
        for (String record : records) {
            String[] kv = record.split("=", 2);
            builder.append(T0, kv[0].getBytes(StandardCharsets.UTF_8), (kv[1] + PADDING)
                    .getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    /** Filler records over three keys of their own, enough to roll a few segments. */
    private void fill(Partition partition, int batches) {
        for (int i = 0; i < batches; i++) {
            plain(partition, "filler-" + i % 3 + "=" + i);
        }
    }

    /** Offset to "key=value" (padding cut) of every record in {@code slice}. */
    private static TreeMap<Long, String> records(ByteBuffer batches) {
        TreeMap<Long, String> records = new TreeMap<>();
        RecordCursor cursor = new RecordCursor();
        while (batches.hasRemaining()) {
            RecordBatch batch = RecordBatch.of(batches.slice());
            if (!batch.isControl()) {
                cursor.reset(batch);
                while (cursor.next()) {
                    String value = StandardCharsets.UTF_8.decode(cursor.value()).toString();
                    records.put(cursor.offset(), StandardCharsets.UTF_8.decode(cursor.key()) + "="
                            + value.substring(0, value.length() - PADDING.length()));
                }
            }
            batches.position(batches.position() + batch.sizeInBytes());
        }
        return records;
    }

    /** Every record the partition serves to read_uncommitted readers. */
    private static TreeMap<Long, String> records(Partition partition) throws IOException {
        TreeMap<Long, String> records = new TreeMap<>();
        long offset = partition.logStartOffset();
        while (offset < partition.highWatermark()) {
            LogSlice slice = partition.read(offset, Integer.MAX_VALUE);
            records.putAll(records(slice.readBytes()));
            offset = slice.nextOffset();
        }
        return records;
    }

    /** The batch at {@code offset}, as a reader gets it. */
    private static RecordBatch batchAt(Partition partition, long offset) throws IOException {
        ByteBuffer bytes = partition.read(offset, Integer.MAX_VALUE).readBytes();
        while (true) {
            RecordBatch batch = RecordBatch.of(bytes.slice());
            if (batch.baseOffset() == offset) {
                return batch;
            }
            bytes.position(bytes.position() + batch.sizeInBytes());
        }
    }

    private Result.Compacted compact(Partition partition, long nowMs) {
        Command.Compact pass = partition.compactionDue(nowMs).orElseThrow();
        return assertInstanceOf(Result.Compacted.class, apply(partition, pass));
    }

    @Test
    void recordsOfAnOpenTransactionAreNeverCleaned() throws IOException {
        Partition partition = open(DIR);
        plain(partition, "k1=v1");                  // 0
        data(partition, P1, "k1=open");             // 1, open
        plain(partition, "k1=later");               // 2
        fill(partition, 20);
        assertEquals(1, partition.lastStableOffset());
        TreeMap<Long, String> before = records(partition);

        assertTrue(partition.compactionDue(T0).isEmpty(), "nothing lies wholly below the last stable offset");
        Result.Compacted forced = assertInstanceOf(Result.Compacted.class,
                apply(partition, new Command.Compact(0, partition.highWatermark(), T0)));
        assertEquals(0, forced.segmentsCleaned(), "a pass stops at the last stable offset whatever it asks");
        assertEquals(before, records(partition));

        marker(partition, P1, true);
        assertEquals(partition.highWatermark(), partition.lastStableOffset());
        Result.Compacted compacted = compact(partition, T0);
        assertTrue(compacted.segmentsCleaned() > 0, compacted.toString());
        TreeMap<Long, String> after = records(partition);
        assertFalse(after.containsKey(0L));
        assertFalse(after.containsKey(1L), "committed now, and older than k1=later");
        assertEquals("k1=later", after.get(2L));
    }

    /**
     * Aborted records go and the transaction leaves the index (Kafka's cleaned .txnindex keeps only transactions
     * whose records it still holds); both read paths see only committed values; the abort marker goes on the pass the
     * leader asks for once its horizon has passed.
     */
    @Test
    void abortedTransactionsLeaveTheIndexOnceCompactionRemovedTheirRecords() throws IOException {
        Partition partition = open(DIR);
        abortThenFill(partition);
        assertEquals(List.of(new Aborted(P2, 1, 2)), partition.abortedTransactions(0, partition.highWatermark()));
        assertEquals(1, partition.committedView().abortedTransactions());

        compact(partition, T0);
        assertEquals(List.of(), partition.abortedTransactions(0, partition.highWatermark()));
        assertEquals(0, partition.committedView().abortedTransactions());
        TreeMap<Long, String> uncommitted = records(partition);
        assertEquals("k1=committed", uncommitted.get(0L));
        assertTrue(uncommitted.values().stream().noneMatch(r -> r.contains("aborted")), uncommitted.toString());
        TransactionIndex.CommittedRead read = partition.readCommitted(0, Integer.MAX_VALUE,
                partition.lastStableOffset());
        assertEquals(List.of(), read.aborted());
        assertTrue(records(read.slice().readBytes()).values().stream().noneMatch(r -> r.contains("aborted")));
        RecordBatch abortMarker = batchAt(partition, 2);
        assertTrue(abortMarker.isControl());
        assertEquals(T0 + RETENTION_MS, abortMarker.deleteHorizonMs());

        assertTrue(partition.compactionDue(T0 + RETENTION_MS).isEmpty(), "the horizon has not passed yet");
        compact(partition, T0 + RETENTION_MS + 1);
        RecordBatch removed = batchAt(partition, 2);
        assertTrue(removed.isControl());
        assertEquals(0, removed.recordsCount(), "the marker is gone; its offset keeps its place");
    }

    private void abortThenFill(Partition partition) {
        plain(partition, "k1=committed");           // 0
        data(partition, P2, "k1=aborted");          // 1
        marker(partition, P2, false);               // 2
        fill(partition, 20);
    }

    @Test
    void aReplicaRestartingFromASnapshotReplaysThePassesToTheSameBytesAndIndex() throws IOException {
        Partition partition = open(DIR);
        abortThenFill(partition);
        data(partition, P1, "k2=first");           // 23
        marker(partition, P1, true);                // 24
        PartitionSnapshot snapshot = partition.snapshot();
        int snapshotIndex = commands.size();
        fill(partition, 10);
        plain(partition, "k2=second");
        fill(partition, 10);
        compact(partition, T0);
        compact(partition, T0 + RETENTION_MS + 1);
        fill(partition, 10);
        TreeMap<Long, String> served = records(partition);
        List<Aborted> aborted = partition.abortedTransactions(0, partition.highWatermark());
        assertEquals(List.of(), aborted);
        assertEquals(0, batchAt(partition, 2).recordsCount(), "the abort marker went");
        assertEquals(0, batchAt(partition, 24).recordsCount(), "the commit marker of k2=first went after it");
        assertFalse(served.containsValue("k2=first"));
        partition.close();

        Partition restarted = open(DIR);
        restarted.restore(snapshotIndex, snapshot);
        restarted.claimWriter();
        for (int i = snapshotIndex; i < commands.size(); i++) {
            restarted.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(served, records(restarted));
        assertEquals(aborted, restarted.abortedTransactions(0, restarted.highWatermark()));

        Path peerDir = Path.of("/data/changelog-0-peer");
        Partition peer = open(peerDir);
        for (int i = 0; i < commands.size(); i++) {
            peer.apply(i + 1, 1, commands.get(i));
        }
        assertEquals(segmentCrcs(peerDir), segmentCrcs(DIR), "byte-identical segments");
        assertEquals(aborted, peer.abortedTransactions(0, peer.highWatermark()));
    }

    private Map<String, Long> segmentCrcs(Path dir) throws IOException {
        Map<String, Long> files = new TreeMap<>();
        for (Path file : io.list(dir)) {
            if (file.toString().endsWith(".log")) {
                try (FileHandle handle = io.open(file)) {
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
}
