package dev.cairn.protocol.record.compression;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/** One compression format as Kafka writes it inside a RecordBatch v2. Implementations are stateless. */
interface Codec {
    /** Copy chunk for direct buffers, which have no array to hand to a stream in one call. */
    int COPY_CHUNK_BYTES = 8 * 1024;

    /** Writes the compressed form of {@code uncompressed} (position to limit, not consumed) to {@code out}. */
    void compress(ByteBuffer uncompressed, OutputStream out) throws IOException;

    /** Inflates {@code compressed} (position to limit, not consumed) into {@code sink}, which enforces the limit. */
    void decompress(ByteBuffer compressed, BoundedSink sink) throws IOException;

    /** Copies a buffer's readable bytes to a stream without moving the buffer's position. */
    static void writeTo(ByteBuffer buffer, OutputStream out) throws IOException {
        if (buffer.hasArray()) {
            out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            return;
        }
        ByteBuffer view = buffer.duplicate();
        byte[] chunk = new byte[Math.min(view.remaining(), COPY_CHUNK_BYTES)];
        while (view.hasRemaining()) {
            int count = Math.min(chunk.length, view.remaining());
            view.get(chunk, 0, count);
            out.write(chunk, 0, count);
        }
    }
}
