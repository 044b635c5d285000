package dev.cairn.broker.raft;

import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.snapshot.PartitionSnapshots;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;

/**
 * A partition group's snapshots as Ratis sees them: {@link PartitionSnapshots} (the layout, writing, installing and
 * cleaning up) in the group's Ratis state machine directory ({@code sm/}), described to Ratis as the files it ships
 * to a follower that is behind the leader's purged Raft log: the manifest, then each segment's hard link up to the
 * size the manifest records ({@link PrefixFileInfo}), never the {@code applied} marker. The follower's Ratis
 * replaces its whole {@code sm/} directory with them, and {@link PartitionStateMachine} then rescans
 * ({@link #reload}) and rebuilds the log from those segments.
 */
final class PartitionSnapshotStorage implements StateMachineStorage {
    /** A snapshot and how Ratis sees it, computed once per snapshot. */
    private record Described(PartitionSnapshots.Stored stored, SnapshotInfo info) {
    }

    private volatile File stateMachineDir;
    private volatile PartitionSnapshots snapshots;
    private volatile Described described;

    @Override
    public void init(RaftStorage raftStorage) throws IOException {
        File directory = raftStorage.getStorageDir().getStateMachineDir();
        snapshots = PartitionSnapshots.open(directory.toPath());
        stateMachineDir = directory;
    }

    /** The snapshots themselves: written, installed and marked applied through this. Null before {@link #init}. */
    PartitionSnapshots snapshots() {
        return snapshots;
    }

    /** Rescans the directory (after Ratis installed a snapshot from the leader). */
    void reload() throws IOException {
        snapshots.reload();
    }

    /** The newest snapshot, or null (also before {@link #init}). */
    PartitionSnapshots.Stored latest() {
        PartitionSnapshots current = snapshots;
        return current == null ? null : current.latest();
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        PartitionSnapshots.Stored stored = latest();
        if (stored == null) {
            return null;
        }
        Described current = described;
        if (current == null || current.stored() != stored) {
            current = new Described(stored, info(stored));
            described = current;
        }
        return current.info();
    }

    @Override
    public File getSnapshotDir() {
        return stateMachineDir;
    }

    @Override
    public void format() {
        // Nothing to prepare: the directory is created by init.
    }

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
        snapshots.cleanup(policy.getNumSnapshotsRetained());
    }

    /** The files Ratis ships for {@code stored}: a legacy snapshot's single file, else manifest and prefixes. */
    static SnapshotInfo info(PartitionSnapshots.Stored stored) {
        List<FileInfo> files = new ArrayList<>();
        if (stored.legacy()) {
            files.add(new FileInfo(stored.path(), null));
        } else {
            files.add(new FileInfo(stored.manifestFile(), null));
            for (SegmentExtent segment : stored.state().segments()) {
                files.add(new PrefixFileInfo(stored.segmentFile(segment.baseOffset()), segment.sizeBytes()));
            }
        }
        return new FileListSnapshotInfo(files, stored.term(), stored.index());
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
