package dev.cairn.protocol.record.compression;

/**
 * Raised when a compressed record blob inflates past the caller's limit. It is distinct from a decode error:
 * the input may be perfectly well formed (a highly compressible batch, or a deliberate zip bomb), and the broker
 * answers it with MESSAGE_TOO_LARGE rather than INVALID_RECORD, which lets a Java producer split the batch.
 */
public final class DecompressedSizeExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int decompressedBytesMax;

    public DecompressedSizeExceededException(CompressionType compressionType, int decompressedBytesMax) {
        super(compressionType.kafkaName() + " record data decompresses to more than " + decompressedBytesMax
                + " bytes", null, false, false);
        this.decompressedBytesMax = decompressedBytesMax;
    }

    public int decompressedBytesMax() {
        return decompressedBytesMax;
    }
}
