package dev.cairn.broker.log;

import dev.cairn.broker.io.FileHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The result of {@link Log#read}: whole record batches, {@link #sizeBytes()} bytes starting at
 * {@link #position()} of one segment file, holding offsets {@link #firstOffset()} to
 * {@link #nextOffset()} - 1.
 *
 * <p>For zero-copy sending, {@link #fileChannel()} gives the real {@link FileChannel} when the log runs on
 * {@code NioFileIo} (the network layer wraps it in a file region: sendfile(2)); otherwise, for example on the
 * simulated file system, it is null and {@link #transferTo} or {@link #readBytes()} copy the bytes. The slice
 * stays readable after the log has moved on; when retention deleted the segment and its file was closed, the
 * transfer fails with an IOException, which the fetch path treats as retriable.
 */
public final class LogSlice {
    private final FileHandle file;
    private final long position;
    private final int sizeBytes;
    private final long firstOffset;
    private final long nextOffset;

    LogSlice(FileHandle file, long position, int sizeBytes, long firstOffset, long nextOffset) {
        this.file = file;
        this.position = position;
        this.sizeBytes = sizeBytes;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
    }

    /** A slice without batches, at {@code offset}. */
    public static LogSlice empty(long offset) {
        return new LogSlice(null, 0, 0, offset, offset);
    }

    public boolean isEmpty() {
        return sizeBytes == 0;
    }

    public int sizeBytes() {
        return sizeBytes;
    }

    /** The byte position of the first batch in {@link #fileChannel()}. */
    public long position() {
        return position;
    }

    /** The base offset of the first batch (at or below the fetch offset). */
    public long firstOffset() {
        return firstOffset;
    }

    /** One past the last offset of the last batch. */
    public long nextOffset() {
        return nextOffset;
    }

    /** The segment file's channel for zero-copy sending, or null when the log is not file-backed. */
    public FileChannel fileChannel() {
        return file == null ? null : file.fileChannel();
    }

    /**
     * Writes the slice to {@code target} (sendfile when file-backed); returns the bytes written. A blocking
     * target takes everything; a non-blocking one may take less, and the caller continues with
     * {@link #transferTo(long, WritableByteChannel)} from the returned count.
     */
    public long transferTo(WritableByteChannel target) throws IOException {
        return transferTo(0, target);
    }

    /** Writes the slice from {@code skipBytes} on to {@code target}; returns the bytes written. */
    public long transferTo(long skipBytes, WritableByteChannel target) throws IOException {
        if (skipBytes < 0 || skipBytes > sizeBytes) {
            throw new IllegalArgumentException("skip " + skipBytes + " outside slice of " + sizeBytes + " bytes");
        }
        if (file == null || skipBytes == sizeBytes) {
            return 0;
        }
        return file.transferTo(position + skipBytes, sizeBytes - skipBytes, target);
    }

    /** Copies the slice into a new heap buffer (for TLS, tests and the Maelstrom node). */
    public ByteBuffer readBytes() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(sizeBytes);
        if (file != null) {
            file.readFully(buffer, position);
        }
        return buffer.flip();
    }

    /** Copies the slice's first {@code bytes} bytes (all of it when shorter) into a new heap buffer. */
    public ByteBuffer readHead(int bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(Math.min(Math.max(0, bytes), sizeBytes));
        if (file != null) {
            file.readFully(buffer, position);
        }
        return buffer.flip();
    }

    @Override
    public String toString() {
        return "LogSlice[offsets " + firstOffset + ".." + nextOffset + ", " + sizeBytes + " bytes at " + position
                + (file == null ? "" : " of " + file.path()) + "]";
    }
}
