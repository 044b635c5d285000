package dev.cairn.client;

/**
 * Where an acknowledged record landed. With acks=0 the broker says nothing, so offset is -1. The timestamp is the
 * record's CreateTime, or the broker's LogAppendTime when the topic uses it.
 */
public record RecordMetadata(String topic, int partition, long offset, long timestampMs) {
    /** The offset reported when the broker sends no acknowledgement (acks=0). */
    public static final long UNKNOWN_OFFSET = -1L;
}
