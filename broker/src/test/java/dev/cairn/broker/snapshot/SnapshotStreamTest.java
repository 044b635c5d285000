package dev.cairn.broker.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stored snapshot as a byte stream: the header, the manifest file, then each segment's recorded prefix. */
class SnapshotStreamTest {
    @TempDir
    Path dir;
    private Path logDir;
    private PartitionSnapshots snapshots;
    private PartitionSnapshots.Stored snapshot;
    private byte[] expected;

    @BeforeEach
    void setUp() throws IOException {
        logDir = Files.createDirectories(dir.resolve("logs/t-0"));
        snapshots = PartitionSnapshots.open(dir.resolve("sm"));
        Files.writeString(SegmentDescriptor.logFile(logDir, 0), "0123456789", StandardCharsets.US_ASCII);
        Files.writeString(SegmentDescriptor.logFile(logDir, 10), "", StandardCharsets.US_ASCII);
        Files.writeString(SegmentDescriptor.logFile(logDir, 20), "abcdef", StandardCharsets.US_ASCII);
        snapshot = snapshots.write(1, 30, PartitionSnapshotsTest.state(16, new SegmentExtent(0, 10),
                new SegmentExtent(10, 0), new SegmentExtent(20, 6)), logDir);
        // The active segment grows after the snapshot; the stream still carries the 6 bytes the manifest records.
        Files.writeString(SegmentDescriptor.logFile(logDir, 20), "XYZ", StandardOpenOption.APPEND);

        byte[] manifest = Files.readAllBytes(snapshot.manifestFile());
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(ByteBuffer.allocate(4).putInt(manifest.length).array());
        stream.writeBytes(manifest);
        stream.writeBytes("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        expected = stream.toByteArray();
    }

    @Test
    void theStreamIsTheManifestsLengthTheManifestThenEachSegmentsPrefix() throws IOException {
        assertEquals(expected.length, SnapshotStream.totalBytes(snapshot));
        assertArrayEquals(expected, SnapshotStream.read(snapshot, 0, Integer.MAX_VALUE));
    }

    @Test
    void everyWindowOfTheStreamReadsTheSameBytes() throws IOException {
        for (int maxBytes = 1; maxBytes <= 9; maxBytes++) {
            for (int offset = 0; offset <= expected.length; offset++) {
                byte[] piece = SnapshotStream.read(snapshot, offset, maxBytes);
                int end = Math.min(expected.length, offset + maxBytes);
                assertArrayEquals(Arrays.copyOfRange(expected, offset, end), piece,
                        "offset " + offset + ", at most " + maxBytes);
            }
        }
    }

    @Test
    void theEndReadsNothingAndPastItIsRefused() throws IOException {
        assertEquals(0, SnapshotStream.read(snapshot, expected.length, 100).length);
        assertEquals(0, SnapshotStream.read(snapshot, 3, 0).length);
        assertThrows(IllegalArgumentException.class, () -> SnapshotStream.read(snapshot, expected.length + 1, 1));
        assertThrows(IllegalArgumentException.class, () -> SnapshotStream.read(snapshot, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> SnapshotStream.read(snapshot, 0, -1));
    }

    @Test
    void aCleanedUpSnapshotCannotBeRead() throws IOException {
        SnapshotIo.deleteRecursively(snapshot.path());
        assertThrows(NoSuchFileException.class, () -> SnapshotStream.read(snapshot, 0, 10));
    }

    @Test
    void aLegacySnapshotHasNoStream() throws IOException {
        Path legacy = dir.resolve("legacy/snapshot.1_10");
        Files.createDirectories(legacy.getParent());
        Files.write(legacy, ByteBuffer.allocate(4 + 8 + 8 + 4).putInt(1).putLong(0).putLong(0).putInt(0).array());
        PartitionSnapshots.Stored stored = PartitionSnapshots.open(legacy.getParent()).latest();
        assertThrows(IllegalArgumentException.class, () -> SnapshotStream.read(stored, 0, 10));
    }
}
