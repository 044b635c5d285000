package dev.cairn.broker.config;

import static dev.cairn.broker.config.ConfigKey.intKey;

import java.util.List;

/**
 * The transaction coordinator's keys, with Kafka's names and meanings. The coordinator's state lives in the
 * partitions of {@code __transaction_state}, created the first time a client looks for a transaction coordinator.
 */
public final class TransactionKeys {
    /**
     * Kafka's default is 50; each partition here is a Raft group with its own threads (issue 18), so Cairn starts
     * with fewer. Transactional ids hash over them; the count is fixed once the topic exists.
     */
    public static final ConfigKey<Integer> TRANSACTION_STATE_LOG_NUM_PARTITIONS = intKey(
            "transaction.state.log.num.partitions", 8, 1, 1_000,
            "Partitions of __transaction_state, over which transactional ids are spread (fixed once created).");
    public static final ConfigKey<Integer> TRANSACTION_STATE_LOG_REPLICATION_FACTOR = intKey(
            "transaction.state.log.replication.factor", 3, 1, Short.MAX_VALUE,
            "Replicas of each __transaction_state partition; fewer when fewer brokers are registered at creation.");
    public static final ConfigKey<Integer> TRANSACTION_MAX_TIMEOUT_MS = intKey("transaction.max.timeout.ms",
            900_000, 1, Integer.MAX_VALUE,
            "Longest transaction timeout a producer may ask for (INVALID_TRANSACTION_TIMEOUT above).");

    /** Kafka's default, 7 days: an id with no transaction open or ending, not updated that long, is forgotten. */
    public static final ConfigKey<Integer> TRANSACTIONAL_ID_EXPIRATION_MS = intKey("transactional.id.expiration.ms",
            604_800_000, 1, Integer.MAX_VALUE,
            "How long a transactional id may stay idle (no transaction, no update) before its coordinator forgets it.");
    /** Kafka's default, 1 hour. */
    public static final ConfigKey<Integer> TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS = intKey(
            "transactions.remove.expired.transaction.cleanup.interval.ms", 3_600_000, 1, Integer.MAX_VALUE,
            "How often a coordinator looks for transactional ids idle past transactional.id.expiration.ms.");

    public static final List<ConfigKey<?>> KEYS = List.of(TRANSACTION_STATE_LOG_NUM_PARTITIONS,
            TRANSACTION_STATE_LOG_REPLICATION_FACTOR, TRANSACTION_MAX_TIMEOUT_MS, TRANSACTIONAL_ID_EXPIRATION_MS,
            TRANSACTIONS_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS);

    private TransactionKeys() {
    }
}
