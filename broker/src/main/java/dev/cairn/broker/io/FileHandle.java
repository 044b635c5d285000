package dev.cairn.broker.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * An open file with positional reads and writes. Positional calls never move a shared file pointer, so
 * readers on other threads may call {@link #read} and {@link #transferTo} while one writer appends.
 */
public interface FileHandle extends Closeable {
    Path path();

    /** Writes all remaining bytes of {@code source} at {@code position}; may have written a prefix on failure. */
    void write(ByteBuffer source, long position) throws IOException;

    /** Reads up to {@code target.remaining()} bytes at {@code position}; returns -1 at end of file. */
    int read(ByteBuffer target, long position) throws IOException;

    /** Fills {@code target} from {@code position}, failing with {@link EOFException} at end of file. */
    default void readFully(ByteBuffer target, long position) throws IOException {
        long at = position;
        while (target.hasRemaining()) {
            int n = read(target, at);
            if (n < 0) {
                throw new EOFException(path() + ": end of file at " + at + ", " + target.remaining()
                        + " bytes missing");
            }
            at += n;
        }
    }

    long size() throws IOException;

    /** Cuts the file to {@code sizeBytes} (no-op when it is already shorter). Durable only after {@link #force}. */
    void truncate(long sizeBytes) throws IOException;

    /** Makes all written bytes and the file size durable (fsync). */
    void force() throws IOException;

    /** Copies {@code count} bytes from {@code position} to {@code target}; returns the bytes transferred. */
    long transferTo(long position, long count, WritableByteChannel target) throws IOException;

    /** The underlying channel for zero-copy sending (sendfile), or null when the file is not on disk. */
    FileChannel fileChannel();
}
