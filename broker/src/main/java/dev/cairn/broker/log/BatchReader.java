package dev.cairn.broker.log;

import dev.cairn.broker.io.FileHandle;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A read-ahead window over a file for sequential scans (recovery): reads {@link
 * SegmentDescriptor#RECOVERY_READ_BYTES} at a time into one direct buffer, growing it only for a batch larger
 * than the window.
 */
final class BatchReader {
    private final FileHandle file;
    private final long fileBytes;
    private ByteBuffer buffer;
    private long bufferStart;

    BatchReader(FileHandle file, long fileBytes) {
        this.file = file;
        this.fileBytes = fileBytes;
        this.buffer = ByteBuffer.allocateDirect(SegmentDescriptor.RECOVERY_READ_BYTES);
        this.buffer.limit(0);
    }

    ByteBuffer buffer() {
        return buffer;
    }

    /** The index in {@link #buffer()} of file position {@code position} (valid after a successful fill). */
    int offsetOf(long position) {
        return (int) (position - bufferStart);
    }

    /** Makes {@code bytes} bytes from {@code position} available; false when the file ends first. */
    boolean fill(long position, int bytes) throws IOException {
        if (position + bytes > fileBytes) {
            return false;
        }
        if (position >= bufferStart && position + bytes <= bufferStart + buffer.limit()) {
            return true;
        }
        if (bytes > buffer.capacity()) {
            buffer = ByteBuffer.allocateDirect(bytes);
        }
        buffer.clear();
        int want = (int) Math.min(buffer.capacity(), fileBytes - position);
        buffer.limit(want);
        file.readFully(buffer, position);
        buffer.flip();
        bufferStart = position;
        return true;
    }
}
