package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.PartitionSnapshot;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageDirectory;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Ratis side of partition snapshots: the files Ratis ships (the manifest, then segment prefixes), what it finds
 * after it installed a leader's files, and its retention policy. The layout itself is PartitionSnapshotsTest's.
 */
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
        storage = open(smDir);
    }

    private static PartitionSnapshotStorage open(Path stateMachineDir) throws IOException {
        PartitionSnapshotStorage opened = new PartitionSnapshotStorage();
        opened.init(raftStorage(stateMachineDir.toFile()));
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
    void beforeInitAndWithoutSnapshotsRatisSeesNone() throws IOException {
        assertNull(new PartitionSnapshotStorage().getLatestSnapshot());
        assertNull(storage.getLatestSnapshot());
        assertEquals(smDir.toFile(), storage.getSnapshotDir());
        assertTrue(Files.isDirectory(smDir), "init creates sm/");
    }

    @Test
    void aWrittenSnapshotIsFoundAgainAndShipsOnlyTheRecordedPrefixes() throws IOException {
        segment(0, "0123456789");
        segment(10, "abcdef");
        storage.snapshots().write(1, 50, state(16, new SegmentExtent(0, 10), new SegmentExtent(10, 6)), logDir);
        // The active segment grows after the snapshot: the snapshot still ships 6 bytes of it.
        Files.writeString(SegmentDescriptor.logFile(logDir, 10), "XYZ", StandardOpenOption.APPEND);

        PartitionSnapshotStorage reopened = open(smDir);
        assertEquals(50, reopened.getLatestSnapshot().getIndex());
        assertEquals(1, reopened.getLatestSnapshot().getTerm());
        assertTrue(reopened.latest().applied(), "a snapshot this replica took is already applied here");
        List<FileInfo> files = reopened.getLatestSnapshot().getFiles();
        assertEquals(3, files.size(), "the manifest and two segments, never the applied marker");
        assertEquals(PartitionSnapshots.MANIFEST, files.get(0).getPath().getFileName().toString());
        assertEquals(List.of(10L, 6L), files.subList(1, 3).stream().map(FileInfo::getFileSize).toList());
        assertEquals(9, Files.size(files.get(2).getPath()), "the link itself grew");
        assertTrue(files.stream().allMatch(f -> f.getPath().startsWith(smDir)), "files must lie under sm/");
    }

    @Test
    void theDescriptionIsKeptUntilTheSnapshotChanges() throws IOException {
        segment(0, "x");
        storage.snapshots().write(1, 20, state(1, new SegmentExtent(0, 1)), logDir);
        SnapshotInfo first = storage.getLatestSnapshot();
        assertSame(first, storage.getLatestSnapshot());
        storage.snapshots().write(1, 30, state(1, new SegmentExtent(0, 1)), logDir);
        assertNotSame(first, storage.getLatestSnapshot());
        assertEquals(30, storage.getLatestSnapshot().getIndex());
    }

    @Test
    void afterRatisInstalledTheLeadersFilesAReloadFindsThemUnapplied() throws IOException {
        segment(0, "0123456789");
        storage.snapshots().write(2, 40, state(10, new SegmentExtent(0, 10)), logDir);
        Path followerSm = Files.createDirectories(dir.resolve("follower/sm"));
        PartitionSnapshotStorage follower = open(followerSm);
        assertNull(follower.getLatestSnapshot());

        // Ratis writes each shipped file under the same relative path, up to the shipped size.
        for (FileInfo file : storage.getLatestSnapshot().getFiles()) {
            Path target = followerSm.resolve(smDir.relativize(file.getPath()));
            Files.createDirectories(target.getParent());
            byte[] bytes = Files.readAllBytes(file.getPath());
            Files.write(target, java.util.Arrays.copyOf(bytes, (int) file.getFileSize()));
        }
        follower.reload();
        assertEquals(40, follower.getLatestSnapshot().getIndex());
        assertFalse(follower.latest().applied(), "the marker is never shipped");
    }

    @Test
    void cleanupFollowsRatisRetentionAndDropsLegacyFiles() throws IOException {
        Path legacy = Files.createDirectories(smDir).resolve("snapshot.1_10");
        ByteBuffer v1 = ByteBuffer.allocate(4 + 8 + 8 + 4).putInt(1).putLong(0).putLong(0).putInt(0);
        Files.write(legacy, v1.array());
        storage = open(smDir);
        assertTrue(storage.latest().legacy());
        assertEquals(10, storage.getLatestSnapshot().getIndex());
        assertEquals(List.of(legacy), storage.getLatestSnapshot().getFiles().stream().map(FileInfo::getPath).toList(),
                "a legacy snapshot is its single file");

        segment(0, "x");
        for (long index = 20; index <= 50; index += 10) {
            storage.snapshots().write(1, index, state(1, new SegmentExtent(0, 1)), logDir);
        }
        storage.cleanupOldSnapshots(new SnapshotRetentionPolicy() {
            @Override
            public int getNumSnapshotsRetained() {
                return 2;
            }
        });
        try (Stream<Path> entries = Files.list(smDir)) {
            assertEquals(List.of("snapshot.1_40", "snapshot.1_50"),
                    entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(50, open(smDir).getLatestSnapshot().getIndex());
    }
}
