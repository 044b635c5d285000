package dev.cairn.broker.api;

/**
 * Where a described config's value comes from: the ids of DescribeConfigsResponse's {@code ConfigSource} (KIP-226),
 * the ones Cairn can report: a value is the topic's own, a cluster-wide dynamic broker default, the broker's
 * configured one, or a built-in default.
 */
enum ConfigSource {
    /** Set on the topic (Kafka calls this DYNAMIC_TOPIC_CONFIG in its Admin API). */
    TOPIC_CONFIG(1),
    /** A log level set at run time on a BROKER_LOGGER resource (KIP-412), or the level a logger inherits. */
    DYNAMIC_BROKER_LOGGER_CONFIG(6),
    /** Set at run time for the whole cluster ({@code kafka-configs --entity-type brokers --entity-default}). */
    DYNAMIC_DEFAULT_BROKER_CONFIG(3),
    /** Set in the broker's configuration file or with {@code --set}. */
    STATIC_BROKER_CONFIG(4),
    /** Nobody set it: the built-in default. */
    DEFAULT_CONFIG(5);

    private final byte id;

    ConfigSource(int id) {
        this.id = (byte) id;
    }

    byte id() {
        return id;
    }
}
