package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.PartitionSnapshot;
import java.io.File;
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
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot directories: written, found again, shipped as prefixes, installed into a log, cleaned up. */
class PartitionSnapshotStorageTest {
    @TempDir
    Path dir;
    private Path smDir;
    private Path logDir;
    private PartitionSnapshotStorage storage;

    @BeforeEach
    void setUp() throws IOException {
        smDir = dir.resolve("group/sm");
        logDir = Files.createDirectories(dir.resolve("logs/t-0"));
        storage = open();
    }

    private PartitionSnapshotStorage open() throws IOException {
        PartitionSnapshotStorage opened = new PartitionSnapshotStorage();
        opened.init(raftStorage(smDir.toFile()));
        return opened;
    }

    private static RaftStorage raftStorage(File stateMachineDir) {
        RaftStorageDirectory directory = (RaftStorageDirectory) java.lang.reflect.Proxy.newProxyInstance(
                RaftStorageDirectory.class.getClassLoader(), new Class<?>[] {RaftStorageDirectory.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getStateMachineDir")) {
                        return stateMachineDir;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (RaftStorage) java.lang.reflect.Proxy.newProxyInstance(RaftStorage.class.getClassLoader(),
                new Class<?>[] {RaftStorage.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getStorageDir")) {
                        return directory;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private void segment(long baseOffset, String content) throws IOException {
        Files.writeString(SegmentDescriptor.logFile(logDir, baseOffset), content, StandardCharsets.US_ASCII);
    }

    private static PartitionSnapshot state(long end, SegmentExtent... segments) {
        return new PartitionSnapshot(0, end, new byte[] {4}, Map.of(), List.of(segments));
    }

    @Test
    void aWrittenSnapshotIsFoundAgainAndShipsOnlyTheRecordedPrefixes() throws IOException {
        segment(0, "0123456789");
        segment(10, "abcdef");
        storage.write(1, 50, state(16, new SegmentExtent(0, 10), new SegmentExtent(10, 6)), logDir);
        // The active segment grows after the snapshot: the snapshot still ships 6 bytes of it.
        Files.writeString(SegmentDescriptor.logFile(logDir, 10), "XYZ", StandardOpenOption.APPEND);

        PartitionSnapshotStorage reopened = open();
        assertEquals(50, reopened.getLatestSnapshot().getIndex());
        assertTrue(reopened.latest().applied(), "a snapshot this replica took is already applied here");
        List<FileInfo> files = reopened.getLatestSnapshot().getFiles();
        assertEquals(3, files.size());
        assertEquals(PartitionSnapshotStorage.MANIFEST, files.get(0).getPath().getFileName().toString());
        assertEquals(List.of(10L, 6L), files.subList(1, 3).stream().map(FileInfo::getFileSize).toList());
        assertTrue(files.stream().allMatch(f -> f.getPath().startsWith(smDir)), "files must lie under sm/");
    }

    @Test
    void anInstalledSnapshotReplacesTheLogWithItsSegmentPrefixes() throws IOException {
        segment(0, "0123456789");
        segment(10, "abcdefXYZ");
        storage.write(1, 50, state(16, new SegmentExtent(0, 10), new SegmentExtent(10, 6)), logDir);
        PartitionSnapshotStorage.Stored snapshot = storage.latest();
        // What a follower receives has no "applied" marker; its log holds something else.
        Files.delete(snapshot.path().resolve(PartitionSnapshotStorage.APPLIED_MARKER));
        Path followerLog = Files.createDirectories(dir.resolve("follower/t-0"));
        Files.writeString(followerLog.resolve("00000000000000000000.log"), "stale");
        Files.writeString(followerLog.resolve("recovery-point"), "stale");
        PartitionSnapshotStorage follower = open();
        assertFalse(follower.latest().applied());

        follower.linkSegmentsInto(follower.latest(), followerLog);
        follower.markApplied(follower.latest());

        try (Stream<Path> files = Files.list(followerLog)) {
            assertEquals(2, files.count(), "only the snapshot's segments remain");
        }
        assertArrayEquals("0123456789".getBytes(StandardCharsets.US_ASCII),
                Files.readAllBytes(SegmentDescriptor.logFile(followerLog, 0)));
        byte[] active = Files.readAllBytes(SegmentDescriptor.logFile(followerLog, 10));
        assertArrayEquals("abcdef".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(active, 6));
        assertTrue(open().latest().applied());
    }

    @Test
    void cleanupKeepsTheNewestAndDropsLegacyFiles() throws IOException {
        Path legacy = Files.createDirectories(smDir).resolve("snapshot.1_10");
        ByteBuffer v1 = ByteBuffer.allocate(4 + 8 + 8 + 4).putInt(1).putLong(0).putLong(0).putInt(0);
        Files.write(legacy, v1.array());
        storage = open();
        assertTrue(storage.latest().legacy());
        assertEquals(10, storage.getLatestSnapshot().getIndex());

        segment(0, "x");
        for (long index = 20; index <= 50; index += 10) {
            storage.write(1, index, state(1, new SegmentExtent(0, 1)), logDir);
        }
        storage.cleanupOldSnapshots(2);
        try (Stream<Path> entries = Files.list(smDir)) {
            assertEquals(List.of("snapshot.1_40", "snapshot.1_50"),
                    entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(50, open().getLatestSnapshot().getIndex());
    }

    @Test
    void aDamagedManifestIsIgnored() throws IOException {
        segment(0, "x");
        storage.write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        Path manifest = storage.latest().path().resolve(PartitionSnapshotStorage.MANIFEST);
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[5] ^= 1;
        Files.write(manifest, bytes);
        assertNull(open().latest());
    }
}
