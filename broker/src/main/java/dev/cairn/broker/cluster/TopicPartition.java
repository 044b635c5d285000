package dev.cairn.broker.cluster;

/** A topic name and partition number. */
public record TopicPartition(String topic, int partition) {
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
