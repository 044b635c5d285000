package dev.cairn.broker.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.PartitionSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot layout: written, found again, installed into a log, marked applied, cleaned up; damage is skipped. */
class PartitionSnapshotsTest {
    @TempDir
    Path dir;
    private Path snapshotDir;
    private Path logDir;
    private PartitionSnapshots snapshots;

    @BeforeEach
    void setUp() throws IOException {
        snapshotDir = dir.resolve("group/sm");
        logDir = Files.createDirectories(dir.resolve("logs/t-0"));
        snapshots = PartitionSnapshots.open(snapshotDir);
    }

    private void segment(long baseOffset, String content) throws IOException {
        Files.writeString(SegmentDescriptor.logFile(logDir, baseOffset), content, StandardCharsets.US_ASCII);
    }

    static PartitionSnapshot state(long end, SegmentExtent... segments) {
        return new PartitionSnapshot(0, end, new byte[] {4}, Map.of(), List.of(segments));
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anEmptyDirectoryHasNoSnapshot() throws IOException {
        assertNull(snapshots.latest());
        assertTrue(Files.isDirectory(snapshotDir), "open creates the directory");
        assertEquals(List.of(), snapshots.scan());
    }

    @Test
    void aWrittenSnapshotIsFoundAgainWithTheLayoutItsJavadocDraws() throws IOException {
        segment(0, "0123456789");
        segment(10, "abcdef");
        PartitionSnapshot state = state(16, new SegmentExtent(0, 10), new SegmentExtent(10, 6));
        PartitionSnapshots.Stored written = snapshots.write(3, 50, state, logDir);
        // The active segment grows after the snapshot: a hard link shares the file, the manifest keeps 6 bytes.
        Files.writeString(SegmentDescriptor.logFile(logDir, 10), "XYZ", StandardOpenOption.APPEND);

        assertSame(written, snapshots.latest());
        assertEquals(snapshotDir.resolve("snapshot.3_50"), written.path());
        assertEquals(List.of("snapshot.3_50"), names(snapshotDir), "the .tmp directory was renamed into place");
        assertEquals(List.of(PartitionSnapshots.APPLIED_MARKER, PartitionSnapshots.MANIFEST,
                PartitionSnapshots.SEGMENTS), names(written.path()));
        assertEquals(List.of("00000000000000000000.log", "00000000000000000010.log"),
                names(written.path().resolve(PartitionSnapshots.SEGMENTS)));

        PartitionSnapshots.Stored found = PartitionSnapshots.open(snapshotDir).latest();
        assertEquals(3, found.term());
        assertEquals(50, found.index());
        assertTrue(found.applied(), "a snapshot this replica took is already applied here");
        assertFalse(found.legacy());
        assertArrayEquals(state.encode(), found.state().encode());
        assertEquals(state.segments(), found.state().segments());
        byte[] manifest = Files.readAllBytes(found.manifestFile());
        assertArrayEquals(state.encode(), Arrays.copyOf(manifest, manifest.length - 4), "payload, then CRC32C");
    }

    @Test
    void writingTheSameSnapshotAgainKeepsTheOneStored() throws IOException {
        segment(0, "x");
        PartitionSnapshots.Stored first = snapshots.write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        segment(0, "y");
        PartitionSnapshots.Stored again = snapshots.write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        assertEquals(first.path(), again.path());
        assertEquals(List.of("snapshot.1_20"), names(snapshotDir));
    }

    @Test
    void anInstalledSnapshotReplacesTheLogWithItsSegmentPrefixes() throws IOException {
        segment(0, "0123456789");
        segment(10, "abcdefXYZ");
        snapshots.write(1, 50, state(16, new SegmentExtent(0, 10), new SegmentExtent(10, 6)), logDir);
        PartitionSnapshots.Stored snapshot = snapshots.latest();
        // What a follower receives has no "applied" marker; its log holds something else.
        Files.delete(snapshot.path().resolve(PartitionSnapshots.APPLIED_MARKER));
        Path followerLog = Files.createDirectories(dir.resolve("follower/t-0"));
        Files.writeString(followerLog.resolve("00000000000000000000.log"), "stale");
        Files.writeString(followerLog.resolve("recovery-point"), "stale");
        Files.createDirectories(followerLog.resolve("stale-dir/inner"));
        PartitionSnapshots follower = PartitionSnapshots.open(snapshotDir);
        assertFalse(follower.latest().applied());

        follower.linkSegmentsInto(follower.latest(), followerLog);
        PartitionSnapshots.Stored applied = follower.markApplied(follower.latest());

        assertTrue(applied.applied());
        assertSame(applied, follower.latest());
        assertEquals(List.of("00000000000000000000.log", "00000000000000000010.log"), names(followerLog),
                "only the snapshot's segments remain");
        assertArrayEquals("0123456789".getBytes(StandardCharsets.US_ASCII),
                Files.readAllBytes(SegmentDescriptor.logFile(followerLog, 0)));
        byte[] active = Files.readAllBytes(SegmentDescriptor.logFile(followerLog, 10));
        assertArrayEquals("abcdef".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(active, 6));
        assertTrue(PartitionSnapshots.open(snapshotDir).latest().applied(), "the marker is on disk");
    }

    @Test
    void cleanupKeepsTheNewestAndDropsLegacyFilesAndLeftoverTmpDirectories() throws IOException {
        Path legacy = snapshotDir.resolve("snapshot.1_10");
        ByteBuffer v1 = ByteBuffer.allocate(4 + 8 + 8 + 4).putInt(1).putLong(0).putLong(0).putInt(0);
        Files.write(legacy, v1.array());
        Files.writeString(snapshotDir.resolve("snapshot.1_10.md5"), "legacy checksum");
        snapshots = PartitionSnapshots.open(snapshotDir);
        assertTrue(snapshots.latest().legacy());
        assertTrue(snapshots.latest().applied(), "a legacy snapshot was taken locally");
        assertEquals(10, snapshots.latest().index());

        segment(0, "x");
        for (long index = 20; index <= 50; index += 10) {
            snapshots.write(1, index, state(1, new SegmentExtent(0, 1)), logDir);
        }
        Files.createDirectories(snapshotDir.resolve("snapshot.1_60.tmp/segments"));
        snapshots.cleanup(2);
        assertEquals(List.of("snapshot.1_40", "snapshot.1_50"), names(snapshotDir));
        assertEquals(50, PartitionSnapshots.open(snapshotDir).latest().index());
    }

    @Test
    void cleanupNeverDropsTheLatestEvenWhenItIsNotTheNewestIndex() throws IOException {
        segment(0, "x");
        snapshots.write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        snapshots.write(1, 30, state(1, new SegmentExtent(0, 1)), logDir);
        PartitionSnapshots.Stored older = PartitionSnapshots.open(snapshotDir).scan().stream()
                .filter(s -> s.index() == 20).findFirst().orElseThrow();
        snapshots.markApplied(older);
        snapshots.cleanup(1);
        assertEquals(List.of("snapshot.1_20", "snapshot.1_30"), names(snapshotDir));
    }

    @Test
    void aDamagedManifestIsIgnored() throws IOException {
        segment(0, "x");
        snapshots.write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        Path manifest = snapshots.latest().manifestFile();
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[5] ^= 1;
        Files.write(manifest, bytes);
        assertNull(PartitionSnapshots.open(snapshotDir).latest());
    }

    @Test
    void aSnapshotMissingASegmentPrefixIsIgnored() throws IOException {
        segment(0, "0123456789");
        snapshots.write(1, 20, state(10, new SegmentExtent(0, 10)), logDir);
        snapshots.write(1, 30, state(10, new SegmentExtent(0, 10)), logDir);
        // Each snapshot holds its own link: cutting one file leaves the other snapshots whole.
        Path cut = PartitionSnapshots.segmentPath(snapshotDir.resolve("snapshot.1_30"), 0);
        Files.delete(cut);
        Files.writeString(cut, "01234");
        PartitionSnapshots reopened = PartitionSnapshots.open(snapshotDir);
        assertEquals(20, reopened.latest().index(), "the newest whole snapshot");
        assertEquals(1, reopened.scan().size());
    }

    @Test
    void aDirectoryWithoutAManifestIsIgnored() throws IOException {
        Files.createDirectories(snapshotDir.resolve("snapshot.1_20/segments"));
        Files.writeString(snapshotDir.resolve("unrelated"), "not a snapshot");
        assertNull(PartitionSnapshots.open(snapshotDir).latest());
    }
}
