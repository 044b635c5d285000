package dev.cairn.broker.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The snapshot manifest's encoding: a round trip, the older format, and damaged input. */
class PartitionSnapshotTest {
    private static final PartitionSnapshot SNAPSHOT = new PartitionSnapshot(100, 5_000, new byte[] {1, 2, 3},
            Map.of("group-a", new CommittedOffset(4_000, "meta", 1_700_000_000_000L, 12),
                    "group-b", new CommittedOffset(17, null, 5L)),
            List.of(new SegmentExtent(100, 1024), new SegmentExtent(2_000, 77)));

    @Test
    void roundTripsEveryField() {
        PartitionSnapshot decoded = PartitionSnapshot.decode(ByteBuffer.wrap(SNAPSHOT.encode()));
        assertEquals(SNAPSHOT.logStartOffset(), decoded.logStartOffset());
        assertEquals(SNAPSHOT.logEndOffset(), decoded.logEndOffset());
        assertArrayEquals(SNAPSHOT.producerState(), decoded.producerState());
        assertEquals(SNAPSHOT.committedOffsets(), decoded.committedOffsets());
        assertEquals(SNAPSHOT.segments(), decoded.segments());
    }

    /** Version 4 keeps the topic configs the log follows; none recorded stays none (null), not empty. */
    @Test
    void roundTripsTheTopicConfigs() {
        PartitionSnapshot withConfigs = new PartitionSnapshot(0, 10, new byte[0], Map.of(), List.of(),
                Map.of("segment.bytes", "4096", "cleanup.policy", "compact"), Map.of(3, 0L, 7, 10L));
        assertEquals(withConfigs.topicConfigs(),
                PartitionSnapshot.decode(ByteBuffer.wrap(withConfigs.encode())).topicConfigs());
        assertEquals(withConfigs.leaderEpochs(),
                PartitionSnapshot.decode(ByteBuffer.wrap(withConfigs.encode())).leaderEpochs());
        assertEquals(null, PartitionSnapshot.decode(ByteBuffer.wrap(SNAPSHOT.encode())).leaderEpochs());
        assertEquals(null, PartitionSnapshot.decode(ByteBuffer.wrap(SNAPSHOT.encode())).topicConfigs());
        byte[] bytes = withConfigs.encode();
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThrows(CommandFormatException.class, () -> PartitionSnapshot.decode(ByteBuffer.wrap(cut)),
                    "truncated to " + length);
        }
    }

    /** Version 3 snapshots (before reconfiguration existed) load without topic configs. */
    @Test
    void readsTheFormatWithoutTopicConfigs() {
        ByteBuffer v3 = ByteBuffer.allocate(4 + 8 + 8 + 4 + 4 + 4).putInt(3).putLong(0).putLong(10).putInt(0)
                .putInt(0).putInt(0);
        PartitionSnapshot decoded = PartitionSnapshot.decode(v3.flip());
        assertEquals(10, decoded.logEndOffset());
        assertEquals(null, decoded.topicConfigs());
    }

    /** Version 2 snapshots (before committed leader epochs were kept) still load, with epoch -1. */
    @Test
    void readsTheFormatWithoutCommittedLeaderEpochs() {
        byte[] group = "g".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer v2 = ByteBuffer.allocate(4 + 8 + 8 + 4 + 4 + 4 + group.length + 8 + 8 + 4 + 4)
                .putInt(2).putLong(0).putLong(10).putInt(0)
                .putInt(1).putInt(group.length).put(group).putLong(6).putLong(99).putInt(-1)
                .putInt(0);
        PartitionSnapshot decoded = PartitionSnapshot.decode(v2.flip());
        assertEquals(Map.of("g", new CommittedOffset(6, null, 99, -1)), decoded.committedOffsets());
    }

    @Test
    void readsTheFormatWithoutSegments() {
        ByteBuffer v1 = ByteBuffer.allocate(4 + 8 + 8 + 4 + 2).putInt(1).putLong(3).putLong(9).putInt(2)
                .put(new byte[] {7, 8});
        PartitionSnapshot decoded = PartitionSnapshot.decode(v1.flip());
        assertEquals(9, decoded.logEndOffset());
        assertEquals(Map.of(), decoded.committedOffsets());
        assertEquals(List.of(), decoded.segments());
    }

    @Test
    void everyTruncationIsAClearError() {
        byte[] bytes = SNAPSHOT.encode();
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThrows(CommandFormatException.class, () -> PartitionSnapshot.decode(ByteBuffer.wrap(cut)),
                    "truncated to " + length);
        }
    }

    @Test
    void hugeCountsAreRefusedBeforeAllocating() {
        ByteBuffer hostile = ByteBuffer.allocate(64).putInt(2).putLong(0).putLong(0).putInt(0)
                .putInt(Integer.MAX_VALUE);
        assertThrows(CommandFormatException.class, () -> PartitionSnapshot.decode(hostile.flip()));
    }
}
