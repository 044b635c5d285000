package dev.cairn.raft.runtime;

import dev.cairn.raft.Entry;
import dev.cairn.raft.SnapshotMeta;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A test machine that keeps its state "durably" in a {@link Disk} that outlives the engine (as files would), and
 * takes snapshots: its state is the commands applied, and a snapshot is them joined by newlines.
 */
final class SnapshotMachine implements CommandMachine {

    /** What survives a restart of the engine: the state and the snapshot kept. */
    static final class Disk {
        final List<String> commands = new ArrayList<>();
        long applied;
        long keptIndex;
        byte[] kept = new byte[0];
        int restores;
    }

    private final Disk disk;
    private ByteArrayOutputStream restoring;

    SnapshotMachine(Disk disk) {
        this.disk = disk;
    }

    @Override
    public synchronized long appliedIndex() {
        return disk.applied;
    }

    @Override
    public synchronized Object apply(Entry entry) {
        if (entry.raftIndex() <= disk.applied) {
            return entry.raftIndex();
        }
        if (entry.raftIndex() != disk.applied + 1) {
            throw new AssertionError("applied " + entry.raftIndex() + " after " + disk.applied);
        }
        disk.applied = entry.raftIndex();
        if (entry.data().length > 0) {
            disk.commands.add(new String(entry.data(), StandardCharsets.UTF_8));
        }
        return entry.raftIndex();
    }

    /** Keeps a snapshot of the state as it is; returns its index, for {@link RaftEngine#compact}. */
    synchronized long snapshotNow() {
        disk.keptIndex = disk.applied;
        disk.kept = String.join("\n", disk.commands).getBytes(StandardCharsets.UTF_8);
        return disk.keptIndex;
    }

    @Override
    public synchronized SnapshotPiece readSnapshot(SnapshotMeta snapshot, long offset, int maxBytes) {
        if (snapshot.raftIndex() != disk.keptIndex) {
            return null;
        }
        int from = (int) Math.min(offset, disk.kept.length);
        int to = (int) Math.min(disk.kept.length, from + (long) maxBytes);
        return new SnapshotPiece(Arrays.copyOfRange(disk.kept, from, to), to == disk.kept.length);
    }

    @Override
    public synchronized void beginRestore(SnapshotMeta snapshot) {
        restoring = new ByteArrayOutputStream();
    }

    @Override
    public synchronized void writeRestore(SnapshotMeta snapshot, long offset, byte[] data) {
        if (offset != restoring.size()) {
            throw new AssertionError("a chunk at " + offset + " after " + restoring.size() + " bytes");
        }
        restoring.writeBytes(data);
    }

    @Override
    public synchronized void finishRestore(SnapshotMeta snapshot) {
        byte[] bytes = restoring.toByteArray();
        String text = new String(bytes, StandardCharsets.UTF_8);
        disk.commands.clear();
        if (!text.isEmpty()) {
            disk.commands.addAll(Arrays.asList(text.split("\n", -1)));
        }
        disk.applied = snapshot.raftIndex();
        disk.keptIndex = snapshot.raftIndex();
        disk.kept = bytes;
        disk.restores++;
        restoring = null;
    }

    @Override
    public synchronized List<String> commands() {
        return List.copyOf(disk.commands);
    }
}
