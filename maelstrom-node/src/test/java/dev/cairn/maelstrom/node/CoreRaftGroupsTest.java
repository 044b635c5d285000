package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A single-node group on Cairn's own Raft: appends commit, and a restart rebuilds the partition from its log. */
class CoreRaftGroupsTest {

    private static final long WAIT_MS = 10_000;
    /** How often a wait looks at its condition again. */
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(2);

    @TempDir
    Path dir;

    private static byte[] append(String value) {
        ByteBuffer batch = new RecordBatchBuilder(CompressionType.NONE)
                .append(1L, "k".getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)).build();
        ByteBuffer encoded = CommandCodec.encode(new Command.Append(batch, 1L));
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        return bytes;
    }

    private CoreRaftGroups start() throws Exception {
        NodeConfig config = NodeConfig.parse(List.of("--partitions", "2", "--raft", "cairn"));
        CoreRaftGroups groups = new CoreRaftGroups("n0", List.of("n0"), config, new MaelstromIo(ForkJoinPool
                .commonPool()), dir.resolve("wal"));
        groups.start();
        return groups;
    }

    private static long baseOffset(Result result) {
        assertTrue(result instanceof Result.Appended, "appended: " + result);
        return ((Result.Appended) result).baseOffset();
    }

    /** Waits for a submit until the single node has elected itself (the first election takes a few ticks). */
    private static Result submitOnceLeader(CoreRaftGroups groups, int p, byte[] command) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!groups.leadership(p).leadsAndReady()) {
            assertTrue(System.nanoTime() < deadline, "partition " + p + " elected no leader");
            LockSupport.parkNanos(POLL_NS);
        }
        byte[] result = groups.submitLocal(p, command).get(WAIT_MS, TimeUnit.MILLISECONDS);
        return CommandCodec.decodeResult(ByteBuffer.wrap(result));
    }

    @Test
    @Timeout(30)
    void appendsCommitAndARestartedNodeRebuildsItsPartitionsFromItsLog() throws Exception {
        CoreRaftGroups first = start();
        assertEquals(0, baseOffset(submitOnceLeader(first, 0, append("a"))));
        assertEquals(1, baseOffset(submitOnceLeader(first, 0, append("b"))));
        assertEquals(0, baseOffset(submitOnceLeader(first, 1, append("c"))));
        first.close();

        CoreRaftGroups second = start();
        try {
            assertEquals(2, baseOffset(submitOnceLeader(second, 0, append("d"))),
                    "the restarted node re-applied offsets 0 and 1 before taking the next append");
            assertEquals(3, second.partition(0).highWatermark());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (second.partition(1).highWatermark() < 1) {
                assertTrue(System.nanoTime() < deadline, "partition 1 was not rebuilt");
                LockSupport.parkNanos(POLL_NS);
            }
            assertEquals(1, second.partition(1).highWatermark());
        } finally {
            second.close();
        }
    }
}
