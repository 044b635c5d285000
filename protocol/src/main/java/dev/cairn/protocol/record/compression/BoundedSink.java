package dev.cairn.protocol.record.compression;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A growable byte array that refuses to grow past a limit. Decompression writes into it, so a zip bomb costs at
 * most {@code decompressedBytesMax} bytes of heap before it is rejected, never an OutOfMemoryError.
 */
final class BoundedSink {
    /** The first allocation; later ones double, capped at the limit. */
    private static final int INITIAL_BYTES_MAX = 64 * 1024;
    /** The read chunk size when draining a decompressing stream into the sink. */
    private static final int READ_CHUNK_BYTES = 16 * 1024;

    private final CompressionType compressionType;
    private final int decompressedBytesMax;
    private byte[] bytes;
    private int size;

    BoundedSink(CompressionType compressionType, int sizeHintBytes, int decompressedBytesMax) {
        this.compressionType = compressionType;
        this.decompressedBytesMax = decompressedBytesMax;
        int initial = Math.min(decompressedBytesMax, Math.min(INITIAL_BYTES_MAX, Math.max(sizeHintBytes, 1)));
        this.bytes = new byte[Math.max(initial, 1)];
    }

    /** Makes room for {@code count} more bytes, or raises DecompressedSizeExceededException. */
    void reserve(int count) {
        long needed = (long) size + count;
        if (needed > decompressedBytesMax) {
            throw new DecompressedSizeExceededException(compressionType, decompressedBytesMax);
        }
        if (needed > bytes.length) {
            long doubled = Math.max(needed, 2L * bytes.length);
            byte[] grown = new byte[(int) Math.min(doubled, decompressedBytesMax)];
            System.arraycopy(bytes, 0, grown, 0, size);
            bytes = grown;
        }
    }

    byte[] array() {
        return bytes;
    }

    int size() {
        return size;
    }

    void advance(int count) {
        size += count;
    }

    /** Drains a decompressing stream into the sink, reading in chunks so the limit is checked as data arrives. */
    void readFully(InputStream in) throws IOException {
        while (true) {
            if (size == bytes.length) {
                // Full: one more byte either proves the stream is done or that it is over the limit.
                int probe = in.read();
                if (probe < 0) {
                    return;
                }
                reserve(1);
                bytes[size++] = (byte) probe;
            }
            int count = in.read(bytes, size, Math.min(bytes.length - size, READ_CHUNK_BYTES));
            if (count < 0) {
                return;
            }
            size += count;
        }
    }

    ByteBuffer toByteBuffer() {
        return ByteBuffer.wrap(bytes, 0, size).slice();
    }
}
