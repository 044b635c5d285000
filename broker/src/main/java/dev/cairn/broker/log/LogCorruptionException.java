package dev.cairn.broker.log;

import dev.cairn.broker.io.StorageException;
import java.nio.file.Path;

/**
 * Damaged data in a part of the log that had been made durable (an inactive segment, or the flushed part of
 * the active one). It is never truncated away: the partition stops, and an operator (or a replica
 * re-sync from the Raft leader) has to repair it. The message names the file, the byte position and why.
 */
public final class LogCorruptionException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long position;

    public LogCorruptionException(Path file, long position, String reason) {
        super("corrupt log " + file + " at position " + position + ": " + reason);
        this.file = file;
        this.position = position;
    }

    public Path file() {
        return file;
    }

    public long position() {
        return position;
    }
}
