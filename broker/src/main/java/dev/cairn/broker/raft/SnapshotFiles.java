package dev.cairn.broker.raft;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Writes and reads single-file snapshots in a state machine's Ratis storage: {@code snapshot.<term>_<index>}
 * written to a temporary file, fsynced, renamed into place, then an {@code .md5} beside it, so a crash leaves
 * either the previous snapshot or the new one, never a torn file that looks valid.
 */
final class SnapshotFiles {
    private SnapshotFiles() {
    }

    static SingleFileSnapshotInfo write(SimpleStateMachineStorage storage, long term, long raftIndex, byte[] bytes)
            throws IOException {
        File target = storage.getSnapshotFile(term, raftIndex);
        Path tmp = target.toPath().resolveSibling(target.getName() + ".tmp");
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        Files.move(tmp, target.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(target);
        SingleFileSnapshotInfo info = new SingleFileSnapshotInfo(new FileInfo(target.toPath(), md5), term, raftIndex);
        storage.updateLatestSnapshot(info);
        return info;
    }

    /** The snapshot's bytes, after checking them against the stored MD5. */
    static byte[] read(SingleFileSnapshotInfo snapshot) throws IOException {
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash expected = MD5FileUtil.readStoredMd5ForFile(file);
        if (expected != null) {
            MD5FileUtil.verifySavedMD5(file, expected);
        }
        return Files.readAllBytes(file.toPath());
    }
}
