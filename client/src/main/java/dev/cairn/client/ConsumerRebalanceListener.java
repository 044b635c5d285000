package dev.cairn.client;

import java.util.Collection;

/**
 * Told about partitions moving in and out of a subscribed consumer, with kafka-clients' semantics; every callback
 * runs on the thread calling {@link CairnConsumer#poll} (or {@link CairnConsumer#close}), so it may call
 * {@link CairnConsumer#commitSync()}.
 *
 * <ul>
 *   <li>Eager protocol ("range"): before every rebalance all partitions are revoked, and afterwards the whole new
 *       assignment is assigned.</li>
 *   <li>Cooperative protocol ("cooperative-sticky" alone): only partitions that move away are revoked, after the
 *       rebalance; {@code onPartitionsAssigned} gets only the added ones (possibly none) and is always called.</li>
 *   <li>{@code onPartitionsRevoked} runs while the partitions are still assigned, so committing there (commit on
 *       revoke) hands the next owner the exact position.</li>
 *   <li>{@code onPartitionsLost}: the member was fenced (session expired, poll interval exceeded); the partitions
 *       may already be someone else's, so a commit would fail. By default it calls {@code onPartitionsRevoked}.</li>
 * </ul>
 */
public interface ConsumerRebalanceListener {
    void onPartitionsRevoked(Collection<TopicPartition> partitions);

    void onPartitionsAssigned(Collection<TopicPartition> partitions);

    default void onPartitionsLost(Collection<TopicPartition> partitions) {
        onPartitionsRevoked(partitions);
    }

    /** A listener that does nothing. */
    ConsumerRebalanceListener NONE = new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }
    };
}
