package dev.cairn.protocol.record.compression;

/**
 * Raised when a batch uses a codec whose library is not on the classpath. The codec libraries are optional
 * dependencies of the protocol module, so this surfaces only when that codec is actually used, and the message
 * names the artifact to add.
 */
public final class CodecUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final CompressionType compressionType;

    public CodecUnavailableException(CompressionType compressionType) {
        super(compressionType.kafkaName() + " compression (codec id " + compressionType.id() + ") needs "
                + compressionType.libraryCoordinates() + " on the classpath", null, false, false);
        this.compressionType = compressionType;
    }

    public CompressionType compressionType() {
        return compressionType;
    }
}
