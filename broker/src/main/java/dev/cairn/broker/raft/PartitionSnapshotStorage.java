package dev.cairn.broker.raft;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.PartitionSnapshot;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition group's snapshots, in the group's Ratis state machine directory ({@code sm/}):
 *
 * <pre>
 * snapshot.TERM_INDEX/manifest              the PartitionSnapshot bytes, then their CRC32C (4 bytes)
 * snapshot.TERM_INDEX/segments/BASE.log     the log's segment files, hard links (copies across file systems)
 * snapshot.TERM_INDEX/applied               marker: this replica's log and offsets already hold this state
 * </pre>
 *
 * A snapshot is built in {@code snapshot.TERM_INDEX.tmp} and renamed into place, so a crash leaves the previous
 * snapshot or the new one. Ratis ships the manifest and the segments, never the marker, to a follower that is
 * behind the leader's purged Raft log; the follower's Ratis replaces its whole {@code sm/} directory with them,
 * and {@link PartitionStateMachine} then rebuilds the log from those segments ({@link #linkSegmentsInto}).
 *
 * <p>The last segment is the log's active one and keeps growing after the snapshot (a hard link shares the
 * file): the manifest records each segment's size at the snapshot, and only that prefix is shipped. Bytes below
 * a snapshot's end are never rewritten (Raft only truncates entries above the committed index), so the prefix
 * stays valid. Hard links also keep segments that retention deleted until the snapshot itself is cleaned up.
 *
 * <p>A snapshot written by Cairn before this layout ({@code snapshot.TERM_INDEX} as a single file holding a
 * version-1 PartitionSnapshot) is still read, as a snapshot already applied locally.
 */
final class PartitionSnapshotStorage implements StateMachineStorage {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionSnapshotStorage.class);
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
    private static final String TMP_SUFFIX = ".tmp";
    static final String MANIFEST = "manifest";
    static final String SEGMENTS = "segments";
    static final String APPLIED_MARKER = "applied";
    /** A manifest larger than this is refused when read (it holds offsets and extents, not data). */
    private static final long MANIFEST_BYTES_MAX = 256L * 1024 * 1024;

    /** One snapshot on disk. {@code legacy}: the single-file layout from before segments were included. */
    record Stored(Path path, long term, long index, PartitionSnapshot state, boolean applied, boolean legacy) {
        SnapshotInfo info() {
            List<FileInfo> files = new ArrayList<>();
            if (legacy) {
                files.add(new FileInfo(path, null));
            } else {
                files.add(new FileInfo(path.resolve(MANIFEST), null));
                for (SegmentExtent segment : state.segments()) {
                    files.add(new PrefixFileInfo(segmentPath(path, segment.baseOffset()), segment.sizeBytes()));
                }
            }
            return new FileListSnapshotInfo(files, term, index);
        }
    }

    private volatile File stateMachineDir;
    private volatile Stored latest;
    private volatile SnapshotInfo latestInfo;

    @Override
    public void init(RaftStorage raftStorage) throws IOException {
        stateMachineDir = raftStorage.getStorageDir().getStateMachineDir();
        Files.createDirectories(stateMachineDir.toPath());
        reload();
    }

    /** Rescans the directory (after Ratis installed a snapshot from the leader). */
    void reload() throws IOException {
        Stored found = null;
        for (Stored candidate : scan()) {
            if (found == null || candidate.index() > found.index()) {
                found = candidate;
            }
        }
        publish(found);
    }

    Stored latest() {
        return latest;
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return latestInfo;
    }

    @Override
    public File getSnapshotDir() {
        return stateMachineDir;
    }

    @Override
    public void format() {
        // Nothing to prepare: the directory is created by init.
    }

    /**
     * Writes a snapshot of {@code state}, whose segments live in {@code logDirectory}, as taken at
     * ({@code term}, {@code index}); the caller flushed the log first. Returns the stored snapshot.
     */
    Stored write(long term, long index, PartitionSnapshot state, Path logDirectory) throws IOException {
        Path target = stateMachineDir.toPath().resolve("snapshot." + term + "_" + index);
        if (Files.isDirectory(target)) {
            Stored existing = read(target, term, index);
            if (existing != null) {
                return existing;
            }
            FileUtils.deleteFully(target);
        }
        Path tmp = target.resolveSibling(target.getFileName() + TMP_SUFFIX);
        if (Files.exists(tmp)) {
            FileUtils.deleteFully(tmp);
        }
        Path segments = Files.createDirectories(tmp.resolve(SEGMENTS));
        for (SegmentExtent segment : state.segments()) {
            linkOrCopy(SegmentDescriptor.logFile(logDirectory, segment.baseOffset()),
                    segments.resolve(segmentFileName(segment.baseOffset())), segment.sizeBytes());
        }
        writeManifest(tmp.resolve(MANIFEST), state.encode());
        writeDurably(tmp.resolve(APPLIED_MARKER), new byte[0]);
        fsyncDirectory(segments);
        fsyncDirectory(tmp);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(stateMachineDir.toPath());
        Stored stored = new Stored(target, term, index, state, true, false);
        publish(stored);
        return stored;
    }

    /**
     * Replaces every file in {@code logDirectory} with the snapshot's segments (hard links where possible), each
     * exactly as long as the manifest says. The log is closed while this runs; a crash midway is repaired by
     * running it again, since the snapshot is still unapplied.
     */
    void linkSegmentsInto(Stored snapshot, Path logDirectory) throws IOException {
        Files.createDirectories(logDirectory);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(logDirectory)) {
            for (Path file : files) {
                if (Files.isDirectory(file)) {
                    FileUtils.deleteFully(file);
                } else {
                    Files.delete(file);
                }
            }
        }
        for (SegmentExtent segment : snapshot.state().segments()) {
            Path source = segmentPath(snapshot.path(), segment.baseOffset());
            long size = Files.size(source);
            if (size < segment.sizeBytes()) {
                throw new IOException(source + " holds " + size + " bytes, the snapshot's manifest "
                        + segment.sizeBytes());
            }
            linkOrCopy(source, SegmentDescriptor.logFile(logDirectory, segment.baseOffset()), segment.sizeBytes());
        }
        fsyncDirectory(logDirectory);
    }

    /** Records that this replica's log and offsets now hold the snapshot's state. */
    void markApplied(Stored snapshot) throws IOException {
        writeDurably(snapshot.path().resolve(APPLIED_MARKER), new byte[0]);
        fsyncDirectory(snapshot.path());
        publish(new Stored(snapshot.path(), snapshot.term(), snapshot.index(), snapshot.state(), true, false));
    }

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
        cleanupOldSnapshots(policy.getNumSnapshotsRetained());
    }

    /** Keeps the newest {@code retained} snapshots (all when not positive) and always the latest one. */
    void cleanupOldSnapshots(int retained) throws IOException {
        List<Stored> snapshots = scan();
        snapshots.sort(Comparator.comparingLong(Stored::index).reversed());
        Stored newest = latest;
        for (int i = 0; i < snapshots.size(); i++) {
            Stored snapshot = snapshots.get(i);
            boolean isLatest = newest != null && snapshot.path().equals(newest.path());
            boolean beyondRetention = retained > 0 && i >= retained;
            if (!isLatest && (beyondRetention || snapshot.legacy())) {
                deleteSnapshot(snapshot);
            }
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(stateMachineDir.toPath(), "*" + TMP_SUFFIX)) {
            for (Path tmp : files) {
                FileUtils.deleteFully(tmp);
            }
        }
    }

    private void deleteSnapshot(Stored snapshot) throws IOException {
        LOG.debug("deleting snapshot {}", snapshot.path());
        FileUtils.deleteFully(snapshot.path());
        if (snapshot.legacy()) {
            Files.deleteIfExists(snapshot.path().resolveSibling(snapshot.path().getFileName() + ".md5"));
        }
    }

    private void publish(Stored stored) {
        latest = stored;
        latestInfo = stored == null ? null : stored.info();
    }

    private List<Stored> scan() throws IOException {
        List<Stored> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(stateMachineDir.toPath())) {
            for (Path entry : entries) {
                Matcher name = SNAPSHOT_NAME.matcher(entry.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                Stored stored = read(entry, Long.parseLong(name.group(1)), Long.parseLong(name.group(2)));
                if (stored != null) {
                    found.add(stored);
                }
            }
        }
        return found;
    }

    /** The snapshot at {@code path}, or null (logged) when it is incomplete or damaged. */
    private static Stored read(Path path, long term, long index) throws IOException {
        try {
            if (Files.isRegularFile(path)) {
                PartitionSnapshot state = PartitionSnapshot.decode(ByteBuffer.wrap(Files.readAllBytes(path)));
                return new Stored(path, term, index, state, true, true);
            }
            Path manifest = path.resolve(MANIFEST);
            if (!Files.isRegularFile(manifest)) {
                LOG.warn("ignoring snapshot {}: no manifest", path);
                return null;
            }
            PartitionSnapshot state = PartitionSnapshot.decode(ByteBuffer.wrap(readManifest(manifest)));
            for (SegmentExtent segment : state.segments()) {
                Path file = segmentPath(path, segment.baseOffset());
                if (!Files.isRegularFile(file) || Files.size(file) < segment.sizeBytes()) {
                    LOG.warn("ignoring snapshot {}: segment {} is missing or short", path, file);
                    return null;
                }
            }
            return new Stored(path, term, index, state, Files.exists(path.resolve(APPLIED_MARKER)), false);
        } catch (CommandFormatException e) {
            LOG.warn("ignoring snapshot {}: {}", path, e.getMessage());
            return null;
        }
    }

    static Path segmentPath(Path snapshotDir, long baseOffset) {
        return snapshotDir.resolve(SEGMENTS).resolve(segmentFileName(baseOffset));
    }

    private static String segmentFileName(long baseOffset) {
        return SegmentDescriptor.logFile(Path.of(""), baseOffset).getFileName().toString();
    }

    private static void writeManifest(Path file, byte[] bytes) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        ByteBuffer out = ByteBuffer.allocate(bytes.length + 4).put(bytes).putInt((int) crc.getValue());
        writeDurably(file, out.array());
    }

    private static byte[] readManifest(Path file) throws IOException {
        long size = Files.size(file);
        if (size < 4 || size > MANIFEST_BYTES_MAX) {
            throw new CommandFormatException("manifest of " + size + " bytes");
        }
        byte[] all = Files.readAllBytes(file);
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(all, all.length - 4, 4).getInt()) {
            throw new CommandFormatException("manifest CRC32C mismatch");
        }
        byte[] bytes = new byte[all.length - 4];
        System.arraycopy(all, 0, bytes, 0, bytes.length);
        return bytes;
    }

    /**
     * Makes {@code target} hold the first {@code bytes} bytes of {@code source}: a hard link when both are on
     * one file system (the extra bytes of a longer source are then shared, and ignored by readers that go by the
     * manifest), otherwise a copy of exactly that prefix, fsynced.
     */
    private static void linkOrCopy(Path source, Path target, long bytes) throws IOException {
        try {
            Files.createLink(target, source);
            return;
        } catch (UnsupportedOperationException | FileSystemException e) {
            LOG.debug("cannot hard-link {} to {} ({}); copying", source, target, e.toString());
        }
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long position = 0;
            while (position < bytes) {
                long moved = in.transferTo(position, bytes - position, out);
                if (moved <= 0) {
                    throw new IOException(source + " ended at " + position + " bytes, " + bytes + " expected");
                }
                position += moved;
            }
            out.force(true);
        }
    }

    private static void writeDurably(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    private static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * A file shipped only up to a recorded size: the active segment's hard link keeps growing after the
     * snapshot, and Ratis reads {@link #getFileSize()} to know where a file ends.
     */
    private static final class PrefixFileInfo extends FileInfo {
        private final long prefixBytes;

        PrefixFileInfo(Path path, long prefixBytes) {
            super(path, null);
            this.prefixBytes = prefixBytes;
        }

        @Override
        public long getFileSize() {
            return prefixBytes;
        }
    }
}
