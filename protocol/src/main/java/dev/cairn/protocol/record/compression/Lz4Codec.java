package dev.cairn.protocol.record.compression;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/**
 * The LZ4 frame format (lz4 frame spec v1.6), which is what Kafka's {@code Lz4BlockOutputStream} writes for magic
 * 1 and 2: independent blocks, 64 KiB maximum block size, no block or content checksum. lz4-java's frame
 * streams read and write the same format; the interop tests check both directions against kafka-clients.
 */
final class Lz4Codec implements Codec {
    @Override
    public void compress(ByteBuffer uncompressed, OutputStream out) throws IOException {
        // Kafka's reader supports block sizes of 64 KiB to 4 MiB; 64 KiB keeps its per-stream buffer small.
        try (LZ4FrameOutputStream lz4 = new LZ4FrameOutputStream(new NonClosingOutputStream(out),
                LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB, LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE)) {
            Codec.writeTo(uncompressed, lz4);
        }
    }

    @Override
    public void decompress(ByteBuffer compressed, BoundedSink sink) throws IOException {
        // readSingleFrame = true: a batch holds exactly one frame, and bytes after it would be garbage.
        try (LZ4FrameInputStream lz4 = new LZ4FrameInputStream(new ByteBufferInputStream(compressed), true)) {
            sink.readFully(lz4);
        }
    }
}
