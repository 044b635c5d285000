package dev.cairn.broker.api;

/**
 * Topics the broker keeps for itself, as Kafka's internal topics: Metadata marks them internal (so
 * {@code kafka-topics --list} and pattern subscriptions leave them out) and clients cannot produce to them
 * (INVALID_TOPIC_EXCEPTION). Cairn has one: the transaction coordinator's {@value TransactionCoordinator#TOPIC};
 * committed offsets live in each partition's own Raft group, so there is no {@code __consumer_offsets}.
 */
public final class InternalTopics {
    private InternalTopics() {
    }

    public static boolean isInternal(String topic) {
        return TransactionCoordinator.TOPIC.equals(topic);
    }
}
