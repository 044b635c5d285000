package dev.cairn.broker.api;

import java.util.Map;
import java.util.Optional;

/**
 * This broker's log levels, as Kafka's BROKER_LOGGER config resource shows and changes them ({@code kafka-configs
 * --entity-type broker-loggers}, KIP-412): changes last until the broker stops, as in Kafka.
 */
public interface BrokerLoggers {
    /** The root logger's name, as Kafka spells it. */
    String ROOT = "root";

    /** Every logger the broker has created, by name, with its effective level (ROOT included). */
    Map<String, String> levels();

    /** Whether the broker has created a logger of that name (ROOT always exists). */
    boolean exists(String logger);

    /** Sets a logger's level; why it cannot be set (an unknown level), or empty when it was. */
    Optional<String> set(String logger, String level);

    /** Lets a logger inherit its level again; why not (the root logger), or empty. */
    Optional<String> unset(String logger);
}
