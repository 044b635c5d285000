package dev.cairn.broker.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogConfig;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.log.TestBatches;
import dev.cairn.broker.offsets.InMemoryOffsetStore;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Partition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot of a real partition log shipped as a {@link SnapshotStream} and received by a {@link SnapshotRestore}
 * (docs/engine-integration.md §3, the Cairn engine's readSnapshot / beginRestore / writeRestore / finishRestore):
 * the follower ends with the leader's manifest and segment prefixes byte for byte, and bytes that are not a whole,
 * intact stream install nothing.
 */
class SnapshotRestoreTest {
    private static final long TERM = 2;
    private static final long RAFT_INDEX = 61;

    @TempDir
    Path dir;
    private final NioFileIo io = new NioFileIo();
    private final LogConfig config = LogConfig.defaults().withSegmentBytes(4096);
    private Partition leader;
    private PartitionSnapshots.Stored snapshot;
    private byte[] stream;
    private Path followerDir;
    private PartitionSnapshots follower;

    @BeforeEach
    void setUp() throws IOException {
        Path leaderLog = dir.resolve("leader/orders-0");
        leader = new Partition("orders", 0, Log.open(io, leaderLog, config), new InMemoryOffsetStore(io));
        long raftIndex = 0;
        for (int i = 0; i < 60; i++) {
            leader.apply(++raftIndex, (int) TERM, append(i));
        }
        leader.apply(++raftIndex, (int) TERM, new Command.CommitOffset("g1", 42, 2, "meta", 99L));
        PartitionSnapshots leaderSnapshots = PartitionSnapshots.open(dir.resolve("leader/snapshots"));
        snapshot = leaderSnapshots.write(TERM, raftIndex, leader.snapshot(), leaderLog);
        assertEquals(RAFT_INDEX, raftIndex);
        assertTrue(snapshot.state().segments().size() > 2, "the test spans several segments");
        // The leader's log goes on after the snapshot: its active segment grows under the snapshot's hard link.
        for (int i = 60; i < 70; i++) {
            leader.apply(++raftIndex, (int) TERM, append(i));
        }
        stream = SnapshotStream.read(snapshot, 0, Integer.MAX_VALUE);
        assertEquals(stream.length, SnapshotStream.totalBytes(snapshot));
        followerDir = dir.resolve("follower/snapshots");
        follower = PartitionSnapshots.open(followerDir);
    }

    @AfterEach
    void tearDown() {
        leader.close();
    }

    private static Command append(int i) {
        ByteBuffer batch = TestBatches.batch(0, 3, 1_000L + i, 300, i);
        // Through the codec, as through the Raft log.
        return CommandCodec.decodeCommand(CommandCodec.encode(new Command.Append(batch, 5_000L)));
    }

    /** Feeds the leader's stream to a new restore in pieces from {@code sizes}, reading each from the stream. */
    private SnapshotRestore feed(IntSupplier sizes) throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        long offset = 0;
        while (offset < SnapshotStream.totalBytes(snapshot)) {
            byte[] piece = SnapshotStream.read(snapshot, offset, sizes.getAsInt());
            restore.write(offset, piece);
            offset += piece.length;
        }
        return restore;
    }

    private void assertIdenticalToTheLeaders(PartitionSnapshots.Stored restored) throws IOException {
        assertEquals(followerDir.resolve("snapshot.2_61"), restored.path());
        assertEquals(TERM, restored.term());
        assertEquals(RAFT_INDEX, restored.index());
        assertFalse(restored.applied(), "restored, not yet installed into the log");
        assertArrayEquals(Files.readAllBytes(snapshot.manifestFile()), Files.readAllBytes(restored.manifestFile()));
        assertArrayEquals(snapshot.state().encode(), restored.state().encode());
        for (SegmentExtent segment : snapshot.state().segments()) {
            byte[] leaderPrefix = Arrays.copyOf(Files.readAllBytes(snapshot.segmentFile(segment.baseOffset())),
                    (int) segment.sizeBytes());
            assertArrayEquals(leaderPrefix, Files.readAllBytes(restored.segmentFile(segment.baseOffset())),
                    "segment " + segment.baseOffset());
        }
        assertEquals(List.of("snapshot.2_61"), names(followerDir), "in place, no .tmp left");
        assertSame(restored, follower.latest());
        PartitionSnapshots.Stored found = PartitionSnapshots.open(followerDir).latest();
        assertEquals(restored.path(), found.path());
        assertFalse(found.applied(), "a restart finds it unapplied, and installs it");
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void sixteenByteChunksReassembleTheManifestAndSegmentPrefixes() throws IOException {
        PartitionSnapshots.Stored restored = feed(() -> 16).finish();
        assertIdenticalToTheLeaders(restored);

        // Installed, the follower's partition holds the leader's log up to the snapshot and its committed offsets.
        Path followerLog = dir.resolve("follower/orders-0");
        follower.linkSegmentsInto(restored, followerLog);
        Partition installed = new Partition("orders", 0, Log.open(io, followerLog, config),
                new InMemoryOffsetStore(io));
        try {
            installed.claimWriter();
            installed.restoreInstalled(restored.index(), restored.state());
            assertEquals(snapshot.state().logEndOffset(), installed.highWatermark());
            assertEquals(42, installed.committedOffset("g1").orElseThrow().offset());
        } finally {
            installed.close();
        }
        assertTrue(follower.markApplied(restored).applied());
    }

    @Test
    void randomChunkSizesReassembleTheSameBytes() throws IOException {
        for (long seed = 1; seed <= 3; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            PartitionSnapshots.Stored restored = feed(() -> 1 + random.nextInt(3000)).finish();
            assertIdenticalToTheLeaders(restored);
        }
    }

    @Test
    void theWholeStreamInOnePieceReassemblesTheSameBytes() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        restore.write(0, stream);
        assertEquals(stream.length, restore.nextOffset());
        assertIdenticalToTheLeaders(restore.finish());
    }

    @Test
    void aFlippedManifestByteIsRefusedAndNothingIsInstalled() throws IOException {
        byte[] damaged = stream.clone();
        damaged[SnapshotStream.HEADER_BYTES + 7] ^= 0x10;
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        SnapshotFormatException refused = assertThrows(SnapshotFormatException.class, () -> {
            for (int offset = 0; offset < damaged.length; offset += 16) {
                restore.write(offset, Arrays.copyOfRange(damaged, offset, Math.min(damaged.length, offset + 16)));
            }
            restore.finish();
        });
        assertTrue(refused.getMessage().contains("CRC32C"), refused.getMessage());
        assertNothingInstalled();
        assertThrows(IllegalStateException.class, restore::finish, "an abandoned restore refuses further calls");
    }

    @Test
    void aManifestDamagedOnDiskBeforeFinishIsRefusedAtFinish() throws IOException {
        SnapshotRestore restore = feed(() -> 16);
        Path manifest = followerDir.resolve("snapshot.2_61.tmp").resolve(PartitionSnapshots.MANIFEST);
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[bytes.length / 2] ^= 1;
        Files.write(manifest, bytes);
        SnapshotFormatException refused = assertThrows(SnapshotFormatException.class, restore::finish);
        assertTrue(refused.getMessage().contains("CRC32C"), refused.getMessage());
        assertNothingInstalled();
    }

    @Test
    void aGapOrAnOverlapIsRefusedAndTheRestoreGoesOn() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        restore.write(0, Arrays.copyOf(stream, 16));
        IllegalStateException gap = assertThrows(IllegalStateException.class,
                () -> restore.write(20, Arrays.copyOfRange(stream, 20, 36)));
        assertTrue(gap.getMessage().contains("expects offset 16, got 20 (a gap)"), gap.getMessage());
        IllegalStateException overlap = assertThrows(IllegalStateException.class,
                () -> restore.write(8, Arrays.copyOfRange(stream, 8, 24)));
        assertTrue(overlap.getMessage().contains("expects offset 16, got 8 (an overlap)"), overlap.getMessage());

        restore.write(16, Arrays.copyOfRange(stream, 16, stream.length));
        assertIdenticalToTheLeaders(restore.finish());
    }

    @Test
    void aStreamLongerThanItsManifestSaysIsRefused() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        byte[] longer = Arrays.copyOf(stream, stream.length + 1);
        SnapshotFormatException refused = assertThrows(SnapshotFormatException.class, () -> restore.write(0, longer));
        assertTrue(refused.getMessage().contains("goes on past offset " + stream.length), refused.getMessage());
        assertNothingInstalled();
        assertThrows(IllegalStateException.class, () -> restore.write(stream.length, new byte[1]));
    }

    @Test
    void aStreamThatEndsEarlyIsRefusedAtFinish() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        restore.write(0, Arrays.copyOf(stream, stream.length - 1));
        SnapshotFormatException refused = assertThrows(SnapshotFormatException.class, restore::finish);
        assertTrue(refused.getMessage().contains((stream.length - 1) + " bytes, " + stream.length + " expected"),
                refused.getMessage());
        assertNothingInstalled();

        SnapshotRestore beforeTheManifest = follower.beginRestore(TERM, RAFT_INDEX);
        beforeTheManifest.write(0, Arrays.copyOf(stream, 10));
        assertThrows(SnapshotFormatException.class, beforeTheManifest::finish);
        assertNothingInstalled();
    }

    @Test
    void aManifestLengthBeyondTheBoundIsRefusedBeforeAnythingIsAllocated() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        byte[] header = ByteBuffer.allocate(4).putInt((int) PartitionSnapshots.MANIFEST_BYTES_MAX + 1).array();
        restore.write(0, Arrays.copyOf(header, 3));
        assertThrows(SnapshotFormatException.class, () -> restore.write(3, new byte[] {header[3]}));
        assertNothingInstalled();
    }

    @Test
    void beginningAgainDropsTheUnfinishedRestore() throws IOException {
        SnapshotRestore first = follower.beginRestore(TERM, RAFT_INDEX);
        first.write(0, Arrays.copyOf(stream, stream.length / 2));
        SnapshotRestore second = follower.beginRestore(TERM, RAFT_INDEX);
        assertThrows(IllegalStateException.class, () -> first.write(stream.length / 2, new byte[1]));
        assertEquals(0, second.nextOffset());
        second.write(0, stream);
        assertIdenticalToTheLeaders(second.finish());
    }

    @Test
    void cleanupSparesARestoreUnderWay() throws IOException {
        SnapshotRestore restore = follower.beginRestore(TERM, RAFT_INDEX);
        restore.write(0, Arrays.copyOf(stream, stream.length / 2));
        follower.cleanup(1);
        restore.write(stream.length / 2, Arrays.copyOfRange(stream, stream.length / 2, stream.length));
        assertIdenticalToTheLeaders(restore.finish());
    }

    @Test
    void aRestoreReplacesAnUnappliedCopyLeftByAnEarlierAttempt() throws IOException {
        feed(() -> 4096).finish();
        // The engine did not hear that the restore finished (a crash): it ships the snapshot again.
        assertIdenticalToTheLeaders(feed(() -> 4096).finish());
    }

    private void assertNothingInstalled() throws IOException {
        assertEquals(List.of(), names(followerDir), "no snapshot and no .tmp directory");
        assertNull(follower.latest());
        assertNull(PartitionSnapshots.open(followerDir).latest());
    }
}
