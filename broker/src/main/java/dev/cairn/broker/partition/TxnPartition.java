package dev.cairn.broker.partition;

/** A topic-partition named in a transaction (the partition core's own name for it: it imports no cluster types). */
public record TxnPartition(String topic, int partition) implements Comparable<TxnPartition> {
    @Override
    public int compareTo(TxnPartition other) {
        int byTopic = topic.compareTo(other.topic);
        return byTopic != 0 ? byTopic : Integer.compare(partition, other.partition);
    }
}
