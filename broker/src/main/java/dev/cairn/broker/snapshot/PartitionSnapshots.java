package dev.cairn.broker.snapshot;

import dev.cairn.broker.log.SegmentDescriptor;
import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.PartitionSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition group's snapshots, in a directory of their own (Ratis's {@code sm/}, or one the Cairn engine's
 * adapter gives). Nothing here knows a Raft implementation:
 *
 * <pre>
 * snapshot.TERM_INDEX/manifest              the PartitionSnapshot bytes, then their CRC32C (4 bytes)
 * snapshot.TERM_INDEX/segments/BASE.log     the log's segment files, hard links (copies across file systems)
 * snapshot.TERM_INDEX/applied               marker: this replica's log and offsets already hold this state
 * </pre>
 *
 * A snapshot is built in {@code snapshot.TERM_INDEX.tmp} and renamed into place, so a crash leaves the previous
 * snapshot or the new one. A replica behind the leader's Raft log receives the manifest and the segment prefixes,
 * never the marker (Ratis ships the files; the Cairn engine ships {@link SnapshotStream}'s bytes into a
 * {@link SnapshotRestore}); it then rebuilds its log from those segments ({@link #linkSegmentsInto}) and marks the
 * snapshot applied ({@link #markApplied}). A crash between the two is repaired by doing both again, since the
 * snapshot is still unapplied.
 *
 * <p>The last segment is the log's active one and keeps growing after the snapshot (a hard link shares the
 * file): the manifest records each segment's size at the snapshot, and only that prefix is shipped. Bytes below
 * a snapshot's end are never rewritten (Raft only truncates entries above the committed index), so the prefix
 * stays valid. Hard links also keep segments that retention deleted until the snapshot itself is cleaned up.
 *
 * <p>A snapshot written by Cairn before this layout ({@code snapshot.TERM_INDEX} as a single file holding a
 * version-1 PartitionSnapshot) is still read, as a snapshot already applied locally (a legacy one: it cannot be
 * shipped).
 *
 * <p>Single writer: one thread (the group's apply thread) writes, restores, marks and cleans up; {@link #latest}
 * may be read from any thread.
 */
public final class PartitionSnapshots {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionSnapshots.class);
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
    private static final String TMP_SUFFIX = ".tmp";
    public static final String MANIFEST = "manifest";
    public static final String SEGMENTS = "segments";
    public static final String APPLIED_MARKER = "applied";
    /** A manifest larger than this is refused when read or restored (it holds offsets and extents, not data). */
    public static final long MANIFEST_BYTES_MAX = 256L * 1024 * 1024;

    static {
        // A restore holds one manifest in a byte array, and the stream's header gives its length as an int.
        if (MANIFEST_BYTES_MAX > Integer.MAX_VALUE - 8) {
            throw new ExceptionInInitializerError("MANIFEST_BYTES_MAX " + MANIFEST_BYTES_MAX + " exceeds an array");
        }
    }

    /** One snapshot on disk. {@code legacy}: the single-file layout from before segments were included. */
    public record Stored(Path path, long term, long index, PartitionSnapshot state, boolean applied, boolean legacy) {
        /** The manifest file (not of a legacy snapshot, which is a single file). */
        public Path manifestFile() {
            return path.resolve(MANIFEST);
        }

        /** The snapshot's hard link (or copy) of the segment at {@code baseOffset}. */
        public Path segmentFile(long baseOffset) {
            return segmentPath(path, baseOffset);
        }
    }

    private final Path directory;
    private volatile Stored latest;
    private volatile SnapshotRestore restoring;

    private PartitionSnapshots(Path directory) {
        this.directory = directory;
    }

    /** The snapshots in {@code directory}, which is created if missing; {@link #latest} is the newest valid one. */
    public static PartitionSnapshots open(Path directory) throws IOException {
        Files.createDirectories(directory);
        PartitionSnapshots snapshots = new PartitionSnapshots(directory);
        snapshots.reload();
        return snapshots;
    }

    public Path directory() {
        return directory;
    }

    /** The newest snapshot (by Raft index), or null when there is none. */
    public Stored latest() {
        return latest;
    }

    /** Rescans the directory (after another party, Ratis, put a snapshot in it) and returns the newest. */
    public Stored reload() throws IOException {
        Stored found = null;
        for (Stored candidate : scan()) {
            if (found == null || candidate.index() > found.index()) {
                found = candidate;
            }
        }
        latest = found;
        return found;
    }

    /**
     * Writes a snapshot of {@code state}, whose segments live in {@code logDirectory}, as taken at
     * ({@code term}, {@code index}); the caller flushed the log first. The snapshot is applied (this replica took
     * it) and becomes {@link #latest}. Returns it, or the valid snapshot already stored at that place.
     */
    public Stored write(long term, long index, PartitionSnapshot state, Path logDirectory) throws IOException {
        Path target = directory.resolve(name(term, index));
        if (Files.isDirectory(target)) {
            Stored existing = read(target, term, index);
            if (existing != null) {
                return existing;
            }
            SnapshotIo.deleteRecursively(target);
        }
        Path tmp = tmpPath(target);
        SnapshotIo.deleteRecursively(tmp);
        Path segments = Files.createDirectories(tmp.resolve(SEGMENTS));
        for (SegmentExtent segment : state.segments()) {
            SnapshotIo.linkOrCopy(SegmentDescriptor.logFile(logDirectory, segment.baseOffset()),
                    segments.resolve(segmentFileName(segment.baseOffset())), segment.sizeBytes());
        }
        SnapshotIo.writeDurably(tmp.resolve(MANIFEST), SnapshotIo.manifestBytes(state.encode()));
        SnapshotIo.writeDurably(tmp.resolve(APPLIED_MARKER), new byte[0]);
        SnapshotIo.fsyncDirectory(segments);
        SnapshotIo.fsyncDirectory(tmp);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        SnapshotIo.fsyncDirectory(directory);
        Stored stored = new Stored(target, term, index, state, true, false);
        latest = stored;
        return stored;
    }

    /**
     * Starts receiving the snapshot taken at ({@code term}, {@code index}) as a {@link SnapshotStream}, in
     * {@code snapshot.TERM_INDEX.tmp}; a restore that did not finish is dropped.
     */
    public SnapshotRestore beginRestore(long term, long index) throws IOException {
        SnapshotRestore previous = restoring;
        if (previous != null) {
            previous.abort();
        }
        Path target = directory.resolve(name(term, index));
        Path tmp = tmpPath(target);
        SnapshotIo.deleteRecursively(tmp);
        Files.createDirectories(tmp.resolve(SEGMENTS));
        SnapshotRestore restore = new SnapshotRestore(this, tmp, target, term, index);
        restoring = restore;
        return restore;
    }

    /**
     * A restore's last step: its complete, checked and fsynced {@code tmp} directory replaces whatever stands at
     * {@code target} (an unapplied copy from an earlier attempt), unapplied. It becomes {@link #latest} unless a
     * newer snapshot is kept, as a rescan would find.
     */
    Stored installRestored(SnapshotRestore restore, Path tmp, Path target, PartitionSnapshot state)
            throws IOException {
        if (Files.exists(target)) {
            LOG.info("replacing snapshot {} with the one restored from the leader", target);
            SnapshotIo.deleteRecursively(target);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        SnapshotIo.fsyncDirectory(directory);
        Stored stored = new Stored(target, restore.term(), restore.index(), state, false, false);
        Stored current = latest;
        if (current == null || current.index() <= stored.index()) {
            latest = stored;
        }
        restoreEnded(restore);
        return stored;
    }

    /** The restore finished or was abandoned. */
    void restoreEnded(SnapshotRestore restore) {
        if (restoring == restore) {
            restoring = null;
        }
    }

    /**
     * Replaces every file in {@code logDirectory} with the snapshot's segments (hard links where possible), each
     * exactly as long as the manifest says. The log is closed while this runs; a crash midway is repaired by
     * running it again, since the snapshot is still unapplied.
     */
    public void linkSegmentsInto(Stored snapshot, Path logDirectory) throws IOException {
        Files.createDirectories(logDirectory);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(logDirectory)) {
            for (Path file : files) {
                SnapshotIo.deleteRecursively(file);
            }
        }
        for (SegmentExtent segment : snapshot.state().segments()) {
            Path source = snapshot.segmentFile(segment.baseOffset());
            long size = Files.size(source);
            if (size < segment.sizeBytes()) {
                throw new IOException(source + " holds " + size + " bytes, the snapshot's manifest "
                        + segment.sizeBytes());
            }
            SnapshotIo.linkOrCopy(source, SegmentDescriptor.logFile(logDirectory, segment.baseOffset()),
                    segment.sizeBytes());
        }
        SnapshotIo.fsyncDirectory(logDirectory);
    }

    /** Records that this replica's log and offsets now hold the snapshot's state; returns it marked so. */
    public Stored markApplied(Stored snapshot) throws IOException {
        SnapshotIo.writeDurably(snapshot.path().resolve(APPLIED_MARKER), new byte[0]);
        SnapshotIo.fsyncDirectory(snapshot.path());
        Stored applied = new Stored(snapshot.path(), snapshot.term(), snapshot.index(), snapshot.state(), true,
                false);
        latest = applied;
        return applied;
    }

    /**
     * Keeps the newest {@code retained} snapshots (all when not positive) and always {@link #latest}; drops
     * legacy snapshots other than the latest, and leftover {@code .tmp} directories other than a restore's that is
     * under way.
     */
    public void cleanup(int retained) throws IOException {
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
        SnapshotRestore underWay = restoring;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + TMP_SUFFIX)) {
            for (Path tmp : files) {
                if (underWay == null || !tmp.equals(underWay.tmpDirectory())) {
                    SnapshotIo.deleteRecursively(tmp);
                }
            }
        }
    }

    private static void deleteSnapshot(Stored snapshot) throws IOException {
        LOG.debug("deleting snapshot {}", snapshot.path());
        SnapshotIo.deleteRecursively(snapshot.path());
        if (snapshot.legacy()) {
            Files.deleteIfExists(snapshot.path().resolveSibling(snapshot.path().getFileName() + ".md5"));
        }
    }

    /** Every valid snapshot in the directory, in no particular order (damaged ones are logged and skipped). */
    public List<Stored> scan() throws IOException {
        List<Stored> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
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
            PartitionSnapshot state = PartitionSnapshot.decode(ByteBuffer.wrap(SnapshotIo.readManifest(manifest)));
            for (SegmentExtent segment : state.segments()) {
                Path file = segmentPath(path, segment.baseOffset());
                if (!Files.isRegularFile(file) || Files.size(file) < segment.sizeBytes()) {
                    LOG.warn("ignoring snapshot {}: segment {} is missing or short", path, file);
                    return null;
                }
            }
            return new Stored(path, term, index, state, Files.exists(path.resolve(APPLIED_MARKER)), false);
        } catch (CommandFormatException | SnapshotFormatException e) {
            LOG.warn("ignoring snapshot {}: {}", path, e.getMessage());
            return null;
        }
    }

    /** {@code snapshot.TERM_INDEX}: a snapshot's directory name. */
    private static String name(long term, long index) {
        return "snapshot." + term + "_" + index;
    }

    private static Path tmpPath(Path target) {
        return target.resolveSibling(target.getFileName() + TMP_SUFFIX);
    }

    /** {@code segments/BASE.log} under a snapshot's directory. */
    public static Path segmentPath(Path snapshotDirectory, long baseOffset) {
        return snapshotDirectory.resolve(SEGMENTS).resolve(segmentFileName(baseOffset));
    }

    private static String segmentFileName(long baseOffset) {
        return SegmentDescriptor.logFile(Path.of(""), baseOffset).getFileName().toString();
    }
}
