package dev.cairn.client;

import java.util.Objects;

/** A partition of a topic. */
public record TopicPartition(String topic, int partition) {
    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition " + partition + " must be >= 0");
        }
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
