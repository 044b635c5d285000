package dev.cairn.protocol.record.compression;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** gzip (RFC 1952) through the JDK, as Kafka's GzipCompression writes it: one gzip member. */
final class GzipCodec implements Codec {
    /** Kafka's gzip streams use 8 KiB buffers; the value only trades copies against memory. */
    private static final int STREAM_BUFFER_BYTES = 8 * 1024;

    @Override
    public void compress(ByteBuffer uncompressed, OutputStream out) throws IOException {
        try (GZIPOutputStream gzip = new GZIPOutputStream(new NonClosingOutputStream(out), STREAM_BUFFER_BYTES)) {
            Codec.writeTo(uncompressed, gzip);
        }
    }

    @Override
    public void decompress(ByteBuffer compressed, BoundedSink sink) throws IOException {
        try (GZIPInputStream gzip = new GZIPInputStream(new ByteBufferInputStream(compressed), STREAM_BUFFER_BYTES)) {
            sink.readFully(gzip);
        }
    }
}
