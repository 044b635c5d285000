package dev.cairn.protocol.record.compression;

import dev.cairn.protocol.wire.DecodeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Compresses and decompresses the records section of a RecordBatch v2 with the codec its attributes name.
 *
 * <p>gzip comes from the JDK. snappy, lz4 and zstd come from optional libraries that are loaded only when a
 * batch uses them: each lives behind its own holder class, and the holder is touched only after a
 * {@link Class#forName(String, boolean, ClassLoader)} probe (which does not initialise anything) has found the
 * library. A client without zstd-jni therefore runs until it meets a zstd batch, and then gets a
 * {@link CodecUnavailableException} that names the missing artifact.
 *
 * <p>Decompression is bounded: the caller passes a limit and the output never grows past it
 * ({@link DecompressedSizeExceededException}). Malformed compressed data raises {@link DecodeException} and
 * nothing else, whatever the library underneath throws.
 */
public final class Compression {
    private static final String SNAPPY_PROBE_CLASS = "org.xerial.snappy.Snappy";
    private static final String LZ4_PROBE_CLASS = "net.jpountz.lz4.LZ4FrameInputStream";
    private static final String ZSTD_PROBE_CLASS = "com.github.luben.zstd.ZstdInputStreamNoFinalizer";
    /** Compressed output starts at this fraction of the input and grows as needed: a guess, not a bound. */
    private static final int COMPRESSED_SIZE_GUESS_DIVISOR = 2;
    /** Room for the codec's own header and trailer on top of the guess. */
    private static final int CODEC_FRAMING_BYTES_GUESS = 64;
    /** Decompressed output starts at this multiple of the input (capped by BoundedSink) and grows as needed. */
    private static final int DECOMPRESSED_SIZE_GUESS_FACTOR = 2;

    private Compression() {
    }

    /** True when the codec's library is on the classpath (always for none and gzip). */
    public static boolean isAvailable(CompressionType compressionType) {
        switch (compressionType) {
            case NONE:
            case GZIP:
                return true;
            case SNAPPY:
                return isPresent(SNAPPY_PROBE_CLASS);
            case LZ4:
                return isPresent(LZ4_PROBE_CLASS);
            case ZSTD:
                return isPresent(ZSTD_PROBE_CLASS);
            default:
                throw new IllegalArgumentException("unknown compression type " + compressionType);
        }
    }

    /**
     * Returns a new heap buffer holding the compressed form of {@code uncompressed} (position to limit; the
     * argument's position does not move). For {@link CompressionType#NONE} it returns a copy.
     */
    public static ByteBuffer compress(CompressionType compressionType, ByteBuffer uncompressed) {
        if (compressionType == CompressionType.NONE) {
            ByteBuffer copy = ByteBuffer.allocate(uncompressed.remaining());
            copy.put(uncompressed.duplicate()).flip();
            return copy;
        }
        ExposedByteArrayOutputStream out = new ExposedByteArrayOutputStream(
                uncompressed.remaining() / COMPRESSED_SIZE_GUESS_DIVISOR + CODEC_FRAMING_BYTES_GUESS);
        try {
            codec(compressionType).compress(uncompressed, out);
        } catch (IOException e) {
            // The streams write to memory, so an IOException here is a library fault, not bad input.
            throw new UncheckedIOException(compressionType.kafkaName() + " compression failed", e);
        }
        return out.toByteBuffer();
    }

    /**
     * Returns a new heap buffer holding the decompressed form of {@code compressed} (position to limit; the
     * argument's position does not move).
     *
     * @throws DecodeException when the data is not a valid stream of that codec
     * @throws DecompressedSizeExceededException when the output would exceed {@code decompressedBytesMax}
     * @throws CodecUnavailableException when the codec's library is not on the classpath
     */
    public static ByteBuffer decompress(CompressionType compressionType, ByteBuffer compressed,
                                        int decompressedBytesMax) {
        if (decompressedBytesMax < 0) {
            throw new IllegalArgumentException("decompressedBytesMax " + decompressedBytesMax + " < 0");
        }
        if (compressionType == CompressionType.NONE) {
            if (compressed.remaining() > decompressedBytesMax) {
                throw new DecompressedSizeExceededException(compressionType, decompressedBytesMax);
            }
            return compressed.duplicate().slice();
        }
        if (!compressed.hasRemaining()) {
            // Every codec writes a header even for empty input, so zero bytes is never a valid stream; zstd-jni
            // and xerial's framing would otherwise read it as an empty stream.
            throw DecodeException.format("empty %s record data", compressionType.kafkaName());
        }
        Codec codec = codec(compressionType);
        BoundedSink sink = new BoundedSink(compressionType,
                (int) Math.min(Integer.MAX_VALUE, (long) compressed.remaining() * DECOMPRESSED_SIZE_GUESS_FACTOR),
                decompressedBytesMax);
        try {
            codec.decompress(compressed, sink);
        } catch (DecompressedSizeExceededException | DecodeException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // Each library signals corrupt input its own way (ZipException, LZ4Exception, ZstdException,
            // IOException from snappy, even IndexOutOfBoundsException); callers see one decode error.
            throw DecodeException.format("corrupt %s record data: %s", compressionType.kafkaName(), e);
        }
        return sink.toByteBuffer();
    }

    private static Codec codec(CompressionType compressionType) {
        switch (compressionType) {
            case GZIP:
                return GzipHolder.CODEC;
            case SNAPPY:
                requirePresent(compressionType, SNAPPY_PROBE_CLASS);
                return SnappyHolder.CODEC;
            case LZ4:
                requirePresent(compressionType, LZ4_PROBE_CLASS);
                return Lz4Holder.CODEC;
            case ZSTD:
                requirePresent(compressionType, ZSTD_PROBE_CLASS);
                return ZstdHolder.CODEC;
            default:
                throw new IllegalArgumentException("no codec for " + compressionType);
        }
    }

    private static void requirePresent(CompressionType compressionType, String probeClass) {
        if (!isPresent(probeClass)) {
            throw new CodecUnavailableException(compressionType);
        }
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, Compression.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Holders defer loading each codec class, and so its library's classes, until first use. */
    private static final class GzipHolder {
        static final Codec CODEC = new GzipCodec();
    }

    private static final class SnappyHolder {
        static final Codec CODEC = new SnappyCodec();
    }

    private static final class Lz4Holder {
        static final Codec CODEC = new Lz4Codec();
    }

    private static final class ZstdHolder {
        static final Codec CODEC = new ZstdCodec();
    }

    /** A ByteArrayOutputStream whose bytes can be wrapped without the copy {@code toByteArray} makes. */
    private static final class ExposedByteArrayOutputStream extends ByteArrayOutputStream {
        ExposedByteArrayOutputStream(int initialBytes) {
            super(initialBytes);
        }

        ByteBuffer toByteBuffer() {
            return ByteBuffer.wrap(buf, 0, count).slice();
        }
    }
}
