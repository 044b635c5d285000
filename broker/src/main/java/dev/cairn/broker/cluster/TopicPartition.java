package dev.cairn.broker.cluster;

/**
 * A topic name and partition number. A key of maps on the data path and in every metadata image, so equality and
 * hash are written out: the ones a record generates go through method handles, which showed in profiles of brokers
 * with thousands of partitions. The hash is the one the record generated, so map orders stay as they were.
 */
public record TopicPartition(String topic, int partition) {
    @Override
    public boolean equals(Object other) {
        return other instanceof TopicPartition tp && partition == tp.partition
                && java.util.Objects.equals(topic, tp.topic);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Objects.hashCode(topic) + partition;
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
