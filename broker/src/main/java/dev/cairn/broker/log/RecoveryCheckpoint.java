package dev.cairn.broker.log;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The log's recovery point: the offset below which every batch is known to be on disk (fsynced), and whether
 * the log was closed cleanly. Recovery uses it to tell a torn tail (after the point: truncate) from damage to
 * acknowledged data (before the point: {@link LogCorruptionException}).
 *
 * <pre>
 *  file &lt;dir&gt;/recovery-point, 20 bytes, big-endian, rewritten in place and fsynced:
 *  0        4        6        8                        16       20
 *  +--------+--------+--------+------------------------+--------+
 *  | magic  | version| flags  | recoveryOffset (i64)   | crc32c |   crc32c covers bytes 0..15
 *  +--------+--------+--------+------------------------+--------+   flags bit 0: closed cleanly
 *                                                                      flags bit 1: restart pending
 * </pre>
 *
 * <p>A torn rewrite fails the CRC and reads as "no checkpoint" (recovery point unknown): recovery then
 * treats every invalid batch in the active segment as a torn tail, which loses nothing that was not also
 * unknown. The value only ever names fsynced data: it is written after the log is forced, and lowered (and
 * forced) before the log is truncated. "Restart pending" makes {@link Log#truncateFullyAndStartAt} atomic: it
 * is written (with the new start offset) before the first segment is deleted, and an open that finds it
 * finishes the restart: it deletes every segment and starts an empty log at that offset.
 */
final class RecoveryCheckpoint {
    static final String FILE_NAME = "recovery-point";
    static final int MAGIC = 0x43524e50;
    static final short VERSION = 1;
    static final int FILE_BYTES = 20;
    static final int CRC_OFFSET = 16;
    static final short FLAG_CLEAN = 1;
    static final short FLAG_RESTART_PENDING = 2;
    /** Recovery offset meaning "unknown": no checkpoint, or an unreadable one. */
    static final long UNKNOWN = -1;

    private final FileHandle file;
    private final ByteBuffer buffer = ByteBuffer.allocate(FILE_BYTES);

    RecoveryCheckpoint(FileIo io, Path directory) throws IOException {
        this.file = io.open(directory.resolve(FILE_NAME));
    }

    /** The stored value, or null when the file is absent, short or fails its CRC. */
    State read() throws IOException {
        if (file.size() != FILE_BYTES) {
            return null;
        }
        ByteBuffer in = ByteBuffer.allocate(FILE_BYTES);
        file.readFully(in, 0);
        CRC32C crc = new CRC32C();
        crc.update(in.array(), 0, CRC_OFFSET);
        if (in.getInt(0) != MAGIC || in.getShort(4) != VERSION || (int) crc.getValue() != in.getInt(CRC_OFFSET)) {
            return null;
        }
        long offset = in.getLong(8);
        short flags = in.getShort(6);
        return offset < 0 ? null : new State(offset, (flags & FLAG_CLEAN) != 0, (flags & FLAG_RESTART_PENDING) != 0);
    }

    /** Rewrites the checkpoint and forces it. */
    void write(long recoveryOffset, boolean clean) throws IOException {
        write(recoveryOffset, clean ? FLAG_CLEAN : 0);
    }

    /** Records that the log is being restarted, empty, at {@code startOffset}. */
    void writeRestartPending(long startOffset) throws IOException {
        write(startOffset, FLAG_RESTART_PENDING);
    }

    private void write(long recoveryOffset, short flags) throws IOException {
        Invariant.check(recoveryOffset >= 0, "negative recovery offset %d", recoveryOffset);
        buffer.clear();
        buffer.putInt(MAGIC).putShort(VERSION).putShort(flags).putLong(recoveryOffset);
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, CRC_OFFSET);
        buffer.putInt((int) crc.getValue());
        buffer.flip();
        file.write(buffer, 0);
        file.force();
    }

    void close() throws IOException {
        file.close();
    }

    record State(long recoveryOffset, boolean clean, boolean restartPending) {
    }
}
