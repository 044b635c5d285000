package dev.cairn.broker.group;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the topics out of a member's metadata in a group of protocol type {@code consumer}: Kafka's
 * ConsumerProtocolSubscription, which every Kafka client writes the same way (an int16 version, then an array of
 * int16-length strings; later fields follow and are not needed). OffsetDelete uses it to refuse deleting offsets
 * of a topic the group consumes. Metadata it cannot read gives empty, which callers treat as "subscribed to
 * everything", so an unreadable subscription never lets offsets in use be deleted.
 */
final class ConsumerSubscription {
    /** More topics than one subscription can hold within a group member's metadata: a malformed count. */
    private static final int TOPICS_MAX = 1_000_000;

    private ConsumerSubscription() {
    }

    /** The subscribed topics, or empty when the metadata is not a readable subscription. */
    static Optional<Set<String>> topics(byte[] metadata) {
        if (metadata == null) {
            return Optional.empty();
        }
        ByteBuffer in = ByteBuffer.wrap(metadata);
        try {
            short version = in.getShort();
            int count = in.getInt();
            if (version < 0 || count < 0 || count > TOPICS_MAX || count * 2L > in.remaining()) {
                return Optional.empty();
            }
            Set<String> topics = new HashSet<>();
            for (int i = 0; i < count; i++) {
                int length = in.getShort();
                if (length < 0 || length > in.remaining()) {
                    return Optional.empty();
                }
                byte[] name = new byte[length];
                in.get(name);
                topics.add(new String(name, StandardCharsets.UTF_8));
            }
            return Optional.of(topics);
        } catch (BufferUnderflowException e) {
            return Optional.empty();
        }
    }
}
