package dev.cairn.broker.snapshot;

import java.io.IOException;

/**
 * Snapshot bytes that cannot be taken as a snapshot: a manifest whose CRC32C does not match or whose size is out of
 * bounds, a manifest that does not decode, or a restore stream that is shorter or longer than its manifest says.
 * Nothing is installed from such bytes.
 */
public final class SnapshotFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public SnapshotFormatException(String message) {
        super(message);
    }

    public SnapshotFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
