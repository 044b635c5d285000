package dev.cairn.broker.io;

import java.io.IOException;

/**
 * An operating error of the storage engine (style.md point 6b): the disk is full, a read or write failed,
 * or data on disk is damaged. The broker maps it to {@code KAFKA_STORAGE_ERROR}. The log or store that
 * threw it stays consistent: nothing partially written is visible, and, when {@link #isDiskFull()}, the
 * same operation may succeed again once space returns.
 */
public class StorageException extends RuntimeException {
    /** The message of the IOException the JDK (and the simulated file system) raises for ENOSPC. */
    public static final String DISK_FULL_MESSAGE = "No space left on device";

    private static final long serialVersionUID = 1L;

    private final boolean diskFull;

    public StorageException(String message, IOException cause) {
        super(message + ": " + cause.getMessage(), cause);
        this.diskFull = isDiskFull(cause);
    }

    /** A failure that is not an I/O call's own (for example a log taken offline by an earlier failure). */
    public StorageException(String message, Throwable cause) {
        super(message, cause);
        this.diskFull = false;
    }

    /** A failure of a library that reports disk-full its own way (RocksDB's NoSpace status). */
    public StorageException(String message, Throwable cause, boolean diskFull) {
        super(message + ": " + cause.getMessage(), cause);
        this.diskFull = diskFull;
    }

    protected StorageException(String message) {
        super(message);
        this.diskFull = false;
    }

    public boolean isDiskFull() {
        return diskFull;
    }

    /** Whether an IOException means ENOSPC; the JDK offers no typed exception for it. */
    public static boolean isDiskFull(IOException e) {
        String message = e.getMessage();
        return message != null && message.contains(DISK_FULL_MESSAGE);
    }
}
