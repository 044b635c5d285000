package dev.cairn.broker.log;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Where the active segment must end after a truncation, so that a replay rebuilds the segments it had.
 *
 * <p>{@link Log#truncateTo} is only used to rewind to a snapshot before Raft replays the committed entries after it:
 * the same batches come back. The segment that held the truncation point had ended at the next segment's base
 * offset, and it must end there again, whatever sizes say: compaction may have shrunk its first part, so rolling by
 * size would put the boundary elsewhere, and replicas would no longer hold the same segments. The plan is kept in
 * the file {@code roll-plan} (offset i64, CRC-32C of it i32), so a restart in the middle of the replay keeps it; it
 * is dropped once the log reaches it.
 */
final class RollPlan {
    static final String FILE_NAME = "roll-plan";
    private static final int BYTES = 12;
    /** No plan: the log rolls by its settings. */
    static final long NONE = -1;

    private final FileIo io;
    private final Path file;
    private final Path directory;
    private long offset = NONE;

    RollPlan(FileIo io, Path directory) {
        this.io = io;
        this.directory = directory;
        this.file = directory.resolve(FILE_NAME);
    }

    /** The offset the active segment ends at, or {@link #NONE}. */
    long offset() {
        return offset;
    }

    /** Reads the plan on open; one the log has already reached, or an unreadable file, is dropped. */
    void load(long logEndOffset) throws IOException {
        offset = NONE;
        if (!io.exists(file)) {
            return;
        }
        ByteBuffer bytes = ByteBuffer.allocate(BYTES);
        try (FileHandle handle = io.open(file)) {
            if (handle.size() == BYTES) {
                handle.readFully(bytes, 0);
                bytes.flip();
                long planned = bytes.getLong();
                if (bytes.getInt() == checksum(planned) && planned > logEndOffset) {
                    offset = planned;
                    return;
                }
            }
        }
        io.delete(file);
    }

    /** Records that the active segment ends at {@code end}; durable before it returns. */
    void set(long end) throws IOException {
        Path tmp = directory.resolve(FILE_NAME + ".tmp");
        ByteBuffer bytes = ByteBuffer.allocate(BYTES).putLong(end).putInt(checksum(end)).flip();
        try (FileHandle handle = io.open(tmp)) {
            handle.truncate(0);
            handle.write(bytes, 0);
            handle.force();
        }
        io.atomicMove(tmp, file);
        io.fsyncDirectory(directory);
        offset = end;
    }

    /** Drops the plan (the log reached it, or restarted from scratch). */
    void clear() throws IOException {
        if (offset != NONE || io.exists(file)) {
            io.delete(file);
        }
        offset = NONE;
    }

    private static int checksum(long value) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(8).putLong(value).flip());
        return (int) crc.getValue();
    }
}
