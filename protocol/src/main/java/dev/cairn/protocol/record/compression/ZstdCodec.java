package dev.cairn.protocol.record.compression;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/** Standard zstd frames through zstd-jni, as Kafka's ZstdCompression writes and reads them. */
final class ZstdCodec implements Codec {
    /** zstd's own default level, which is also Kafka's default {@code compression.zstd.level}. */
    private static final int COMPRESSION_LEVEL = 3;

    @Override
    public void compress(ByteBuffer uncompressed, OutputStream out) throws IOException {
        try (ZstdOutputStreamNoFinalizer zstd = new ZstdOutputStreamNoFinalizer(new NonClosingOutputStream(out),
                COMPRESSION_LEVEL)) {
            Codec.writeTo(uncompressed, zstd);
        }
    }

    @Override
    public void decompress(ByteBuffer compressed, BoundedSink sink) throws IOException {
        try (ZstdInputStreamNoFinalizer zstd = new ZstdInputStreamNoFinalizer(new ByteBufferInputStream(compressed))) {
            sink.readFully(zstd);
        }
    }
}
