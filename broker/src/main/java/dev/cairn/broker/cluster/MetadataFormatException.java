package dev.cairn.broker.cluster;

/** Metadata bytes (a Raft entry or snapshot) that cannot be decoded: a broken invariant, not a client error. */
public final class MetadataFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MetadataFormatException(String message) {
        super(message);
    }
}
