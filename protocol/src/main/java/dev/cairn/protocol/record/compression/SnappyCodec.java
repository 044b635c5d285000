package dev.cairn.protocol.record.compression;

import dev.cairn.protocol.wire.DecodeException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

/**
 * Snappy in xerial's stream framing, which is what Kafka writes (its SnappyCompression wraps
 * {@code SnappyOutputStream}):
 *
 * <pre>
 *   +--------------------+-------------+------------------------+---------------------------------------+
 *   | magic "\x82SNAPPY\0" | version i32 | compatibleVersion i32 | chunks: length i32 + raw snappy block |
 *   +--------------------+-------------+------------------------+---------------------------------------+
 * </pre>
 *
 * All integers are big-endian. Writing uses the library stream. Reading parses the framing here rather than
 * through {@code SnappyInputStream}: that way every chunk's declared uncompressed length is checked against
 * the caller's limit before anything is allocated for it.
 *
 * <p>Data that does not start with xerial's magic is one raw snappy block, with no framing: librdkafka and
 * franz-go write that form by default, and Kafka's reader accepts it (xerial's stream falls back to a raw block
 * when the header is absent), so this does too.
 */
final class SnappyCodec implements Codec {
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int HEADER_BYTES = MAGIC.length + 2 * Integer.BYTES;
    private static final int CHUNK_LENGTH_BYTES = Integer.BYTES;
    /** xerial's stream version 1 is the only framing ever written; a later one may change the layout. */
    private static final int COMPATIBLE_VERSION_MAX = 1;

    @Override
    public void compress(ByteBuffer uncompressed, OutputStream out) throws IOException {
        try (SnappyOutputStream snappy = new SnappyOutputStream(new NonClosingOutputStream(out))) {
            Codec.writeTo(uncompressed, snappy);
        }
    }

    @Override
    public void decompress(ByteBuffer compressed, BoundedSink sink) throws IOException {
        ByteBuffer view = compressed.duplicate().order(ByteOrder.BIG_ENDIAN);
        if (!startsWithMagic(view)) {
            decompressRawBlock(view, sink);
            return;
        }
        readHeader(view);
        byte[] chunk = new byte[0];
        while (view.hasRemaining()) {
            if (startsWithMagic(view)) {
                // Concatenated streams repeat the header; xerial's reader accepts that, so this does too.
                readHeader(view);
                continue;
            }
            if (view.remaining() < CHUNK_LENGTH_BYTES) {
                throw DecodeException.format("snappy chunk length needs %d bytes, %d left", CHUNK_LENGTH_BYTES,
                        view.remaining());
            }
            int chunkBytes = view.getInt();
            if (chunkBytes < 0 || chunkBytes > view.remaining()) {
                throw DecodeException.format("snappy chunk of %d bytes, %d left", chunkBytes, view.remaining());
            }
            if (chunk.length < chunkBytes) {
                chunk = new byte[chunkBytes];
            }
            view.get(chunk, 0, chunkBytes);
            uncompressBlock(chunk, chunkBytes, sink);
        }
    }

    /** The whole of {@code view} is one snappy block (no xerial framing). */
    private static void decompressRawBlock(ByteBuffer view, BoundedSink sink) throws IOException {
        byte[] block = new byte[view.remaining()];
        view.get(block);
        // Without framing nothing marks this as snappy: check the whole block before trusting its declared length,
        // so that garbage is a decode error rather than a claim on the decompression limit.
        if (!Snappy.isValidCompressedBuffer(block, 0, block.length)) {
            throw new DecodeException("snappy data has neither xerial's stream header nor a valid raw block");
        }
        uncompressBlock(block, block.length, sink);
    }

    /** Inflates one raw snappy block, checking its declared length against the sink's limit first. */
    private static void uncompressBlock(byte[] block, int blockBytes, BoundedSink sink) throws IOException {
        int uncompressedBytes = Snappy.uncompressedLength(block, 0, blockBytes);
        if (uncompressedBytes < 0) {
            throw DecodeException.format("snappy block declares %d uncompressed bytes", uncompressedBytes);
        }
        sink.reserve(uncompressedBytes);
        int written = Snappy.uncompress(block, 0, blockBytes, sink.array(), sink.size());
        if (written != uncompressedBytes) {
            throw DecodeException.format("snappy block produced %d bytes, declared %d", written, uncompressedBytes);
        }
        sink.advance(written);
    }

    private static boolean startsWithMagic(ByteBuffer view) {
        if (view.remaining() < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (view.get(view.position() + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static void readHeader(ByteBuffer view) {
        if (view.remaining() < HEADER_BYTES || !startsWithMagic(view)) {
            throw new DecodeException("snappy data does not start with xerial's stream header");
        }
        view.position(view.position() + MAGIC.length);
        view.getInt();
        int compatibleVersion = view.getInt();
        if (compatibleVersion > COMPATIBLE_VERSION_MAX) {
            throw DecodeException.format("snappy stream needs reader version %d, this reads %d",
                    compatibleVersion, COMPATIBLE_VERSION_MAX);
        }
    }
}
