package dev.cairn.protocol.record.compression;

import dev.cairn.protocol.wire.DecodeException;

/**
 * The compression codecs a RecordBatch v2 may name in bits 0-2 of its attributes (Kafka's
 * {@code CompressionType}). Ids 5 to 7 are unassigned; reading one is a decode error, not a new codec.
 */
public enum CompressionType {
    NONE(0, "none", null),
    GZIP(1, "gzip", null),
    SNAPPY(2, "snappy", "org.xerial.snappy:snappy-java"),
    LZ4(3, "lz4", "org.lz4:lz4-java"),
    ZSTD(4, "zstd", "com.github.luben:zstd-jni");

    private static final CompressionType[] BY_ID = values();

    private final int id;
    private final String kafkaName;
    private final String libraryCoordinates;

    CompressionType(int id, String kafkaName, String libraryCoordinates) {
        this.id = id;
        this.kafkaName = kafkaName;
        this.libraryCoordinates = libraryCoordinates;
    }

    /** The codec id as it appears in the batch attributes. */
    public int id() {
        return id;
    }

    /** The name Kafka uses in {@code compression.type}. */
    public String kafkaName() {
        return kafkaName;
    }

    /** The Maven coordinates of the library this codec needs at run time, or null when the JDK suffices. */
    public String libraryCoordinates() {
        return libraryCoordinates;
    }

    /** The codec for an attributes codec id; unassigned ids (5 to 7, or anything else) are a decode error. */
    public static CompressionType forId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw DecodeException.format("unknown compression codec id %d", id);
        }
        return BY_ID[id];
    }
}
