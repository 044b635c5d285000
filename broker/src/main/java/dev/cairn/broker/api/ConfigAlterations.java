package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerDefaults;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.config.ConfigKey;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What IncrementalAlterConfigs and AlterConfigs share: checking one resource's changes the way Kafka checks them and
 * replicating the result through the metadata group. Topic configs change at run time, every name
 * {@link TopicConfigs} accepts; the partition leaders then carry the topic's new configs into each partition's log
 * (a replicated Reconfigure command, so every replica switches at one log position). Kafka answers once the
 * metadata change is committed and applies it to the logs right after; so does Cairn.
 *
 * <p>Of the broker configs, only the cluster-wide log defaults of {@link BrokerDefaults} change while Cairn runs (the
 * default BROKER resource, named ""); per broker they are refused, since every replica of a partition must roll and
 * delete alike. Any other broker config is answered INVALID_REQUEST naming the way to change it (the configuration
 * file, then a restart), rather than accepted and ignored. Replication
 * throttles, which Cairn does not have, are refused when set and accepted as no-ops when deleted (see
 * {@link #BROKER_REPLICATION_THROTTLES}). A BROKER_LOGGER
 * resource (KIP-412) sets or resets this broker's log levels until it stops. Other resource types (client metrics,
 * groups) are answered INVALID_REQUEST as unsupported.
 */
final class ConfigAlterations {
    /** Kafka's IncrementalAlterConfigs operations (AlterConfigOp.OpType). */
    static final byte OP_SET = 0;
    static final byte OP_DELETE = 1;
    static final byte OP_APPEND = 2;
    static final byte OP_SUBTRACT = 3;
    /** Kafka's log levels (LogLevelConfig.VALID_LOG_LEVELS). */
    static final List<String> LOG_LEVELS = List.of("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL");

    static final byte RESOURCE_TYPE_BROKER_LOGGER = 8;
    /**
     * Kafka's replication throttles (KIP-73), which {@code kafka-reassign-partitions} sets with {@code --throttle} and
     * deletes at {@code --verify}: Cairn's replicas catch up through Raft at full speed, so a throttle is refused, and
     * deleting one (never set) changes nothing and is answered as done.
     */
    static final Set<String> BROKER_REPLICATION_THROTTLES = Set.of("leader.replication.throttled.rate",
            "follower.replication.throttled.rate", "replica.alter.log.dirs.io.max.bytes.per.second");
    static final Set<String> TOPIC_REPLICATION_THROTTLES = Set.of("leader.replication.throttled.replicas",
            "follower.replication.throttled.replicas");
    private static final String NO_THROTTLES = "Cairn does not throttle replication (replicas catch up through Raft "
            + "at full speed); run kafka-reassign-partitions without --throttle";

    private final MetadataService metadata;
    private final int nodeId;
    private final BrokerLoggers loggers;

    ConfigAlterations(MetadataService metadata, int nodeId, BrokerLoggers loggers) {
        this.metadata = metadata;
        this.nodeId = nodeId;
        this.loggers = loggers;
    }

    /** One requested change; AlterConfigs' changes are all {@link #OP_SET}. */
    record Change(String name, byte operation, String value) {
    }

    /** A resource's answer: NONE, or Kafka's error and a message. */
    record Outcome(ErrorCode error, String message) {
        static final Outcome OK = new Outcome(ErrorCode.NONE, null);
    }

    /**
     * Checks and (unless {@code validateOnly}) applies one resource's changes. With {@code replace} (AlterConfigs)
     * the resource's configs become exactly the ones listed; otherwise each change applies to the current ones.
     */
    CompletableFuture<Outcome> alter(ConnectionSession session, byte type, String name, List<Change> changes,
            boolean replace, boolean validateOnly) {
        switch (type) {
            case DescribeConfigsHandler.RESOURCE_TYPE_TOPIC:
                if (!session.allowedOnTopic(AclOperation.ALTER_CONFIGS, name)) {
                    return done(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
                }
                return alterTopic(name, changes, replace, validateOnly);
            case DescribeConfigsHandler.RESOURCE_TYPE_BROKER:
                if (!session.allowedOnCluster(AclOperation.ALTER_CONFIGS)) {
                    return done(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Authorization failed.");
                }
                if (changes.stream().allMatch(change -> change.operation() == OP_DELETE
                        && BROKER_REPLICATION_THROTTLES.contains(change.name()))) {
                    return done(ErrorCode.NONE, null);
                }
                if (name.isEmpty()) {
                    return alterBrokerDefaults(changes, replace, validateOnly);
                }
                if (changes.stream().anyMatch(change -> BrokerDefaults.names().contains(change.name()))) {
                    return done(ErrorCode.INVALID_REQUEST, "Cairn changes " + BrokerDefaults.names() + " for the "
                            + "whole cluster only (kafka-configs --entity-type brokers --entity-default), not per "
                            + "broker: every replica of a partition rolls and deletes its segments alike");
                }
                if (changes.stream().anyMatch(change -> BROKER_REPLICATION_THROTTLES.contains(change.name()))) {
                    return done(ErrorCode.INVALID_CONFIG, NO_THROTTLES);
                }
                return done(ErrorCode.INVALID_REQUEST, "Cairn does not change broker configs while it runs: set "
                        + "them in each broker's configuration file and restart it (rolling, one broker at a time)");
            case RESOURCE_TYPE_BROKER_LOGGER:
                if (!session.allowedOnCluster(AclOperation.ALTER_CONFIGS)) {
                    return done(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Authorization failed.");
                }
                return CompletableFuture.completedFuture(replace
                        ? new Outcome(ErrorCode.INVALID_REQUEST, "AlterConfigs cannot change BROKER_LOGGER configs; "
                                + "use IncrementalAlterConfigs")
                        : alterLoggers(name, changes, validateOnly));
            default:
                return done(ErrorCode.INVALID_REQUEST, "altering " + DescribeConfigsHandler.resourceTypeName(type)
                        + " configs is not supported; Cairn alters TOPIC configs");
        }
    }

    private CompletableFuture<Outcome> alterTopic(String name, List<Change> changes, boolean replace,
            boolean validateOnly) {
        TopicInfo topic = metadata.image().topics().get(name);
        if (topic == null) {
            return done(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist.");
        }
        if (changes.size() > Limits.TOPIC_CONFIGS_MAX) {
            return done(ErrorCode.INVALID_REQUEST, "a resource may change at most " + Limits.TOPIC_CONFIGS_MAX
                    + " configs; this one lists " + changes.size());
        }
        Set<String> names = new HashSet<>();
        for (Change change : changes) {
            if (!names.add(change.name())) {
                return done(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys: " + change.name());
            }
        }
        Map<String, String> set = new HashMap<>();
        Set<String> delete = new LinkedHashSet<>();
        for (Change change : changes) {
            Optional<Outcome> refused = resolve(topic, change, set, delete);
            if (refused.isPresent()) {
                return CompletableFuture.completedFuture(refused.get());
            }
        }
        if (validateOnly) {
            return CompletableFuture.completedFuture(Outcome.OK);
        }
        return metadata.submit(new MetadataCommand.AlterTopicConfigs(name, topic.topicId(), replace, set, delete))
                .thenApply(result -> result instanceof MetadataResult.Rejected rejected
                        ? new Outcome(rejected.error(), rejected.message())
                        : result instanceof MetadataResult.Ok ? Outcome.OK
                        : new Outcome(ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected metadata result " + result));
    }

    /**
     * The cluster-wide dynamic broker defaults (the default BROKER resource, named ""): only the keys of
     * {@link BrokerDefaults}, SET and DELETE, each value checked as the broker's configuration file and the topic
     * config it is the default of check it; replication throttles are deleted as no-ops. Replicated through the
     * metadata group; the partition leaders then carry the change into each partition's log.
     */
    private CompletableFuture<Outcome> alterBrokerDefaults(List<Change> changes, boolean replace,
            boolean validateOnly) {
        Map<String, String> set = new HashMap<>();
        Set<String> delete = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        for (Change change : changes) {
            if (change.operation() == OP_DELETE && BROKER_REPLICATION_THROTTLES.contains(change.name())) {
                continue;
            }
            Optional<ConfigKey<?>> key = BrokerDefaults.TOPIC_CONFIG_BY_KEY.keySet().stream()
                    .filter(k -> k.name().equals(change.name())).findFirst();
            if (key.isEmpty()) {
                return done(ErrorCode.INVALID_REQUEST, "Cairn changes only " + BrokerDefaults.names() + " while it "
                        + "runs (cluster-wide); set " + change.name() + " in each broker's configuration file and "
                        + "restart it (rolling, one broker at a time)");
            }
            if (!seen.add(change.name())) {
                return done(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys: " + change.name());
            }
            if (change.operation() == OP_DELETE) {
                delete.add(change.name());
            } else if (change.operation() != OP_SET) {
                return done(ErrorCode.INVALID_CONFIG, "Config value append and subtract are not allowed for "
                        + change.name());
            } else {
                Optional<String> invalid = invalidDefault(key.get(), change.value());
                if (invalid.isPresent()) {
                    return done(ErrorCode.INVALID_CONFIG, invalid.get());
                }
                set.put(change.name(), change.value().trim());
            }
        }
        if (validateOnly) {
            return CompletableFuture.completedFuture(Outcome.OK);
        }
        return metadata.submit(new MetadataCommand.AlterBrokerDefaults(replace, set, delete))
                .thenApply(result -> result instanceof MetadataResult.Rejected rejected
                        ? new Outcome(rejected.error(), rejected.message()) : Outcome.OK);
    }

    /** Why a value cannot be a dynamic default of {@code key}: the broker key's range, then its topic config's. */
    private static Optional<String> invalidDefault(ConfigKey<?> key, String value) {
        if (value == null) {
            return Optional.of("null value not supported for " + key.name());
        }
        try {
            key.parse(value);
        } catch (dev.cairn.broker.config.ConfigException e) {
            return Optional.of(e.getMessage());
        }
        return TopicConfigs.invalidReason(BrokerDefaults.TOPIC_CONFIG_BY_KEY.get(key), value.trim());
    }

    /**
     * Log levels of this broker (KIP-412), checked as Kafka checks them, all before any changes: the resource names
     * this broker, loggers exist, levels are valid, the root logger keeps a level, only SET and DELETE apply.
     */
    private Outcome alterLoggers(String name, List<Change> changes, boolean validateOnly) {
        if (!Integer.toString(nodeId).equals(name)) {
            return new Outcome(ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected " + nodeId
                    + ", but received " + name);
        }
        for (Change change : changes) {
            String logger = change.name();
            if (change.operation() != OP_SET && change.operation() != OP_DELETE) {
                return new Outcome(ErrorCode.INVALID_REQUEST, "operation " + change.operation()
                        + " is not allowed for the BROKER_LOGGER resource (only SET and DELETE)");
            }
            if (!loggers.exists(logger)) {
                return new Outcome(ErrorCode.INVALID_CONFIG, "Logger " + logger + " does not exist!");
            }
            if (change.operation() == OP_DELETE && BrokerLoggers.ROOT.equals(logger)) {
                return new Outcome(ErrorCode.INVALID_REQUEST, "Removing the log level of the root logger is not "
                        + "allowed");
            }
            if (change.operation() == OP_SET && !LOG_LEVELS.contains(String.valueOf(change.value()))) {
                return new Outcome(ErrorCode.INVALID_CONFIG, "Cannot set the log level of " + logger + " to "
                        + change.value() + " as it is not a supported log level. Valid log levels are "
                        + String.join(", ", LOG_LEVELS));
            }
        }
        if (validateOnly) {
            return Outcome.OK;
        }
        for (Change change : changes) {
            Optional<String> refused = change.operation() == OP_SET ? loggers.set(change.name(), change.value())
                    : loggers.unset(change.name());
            if (refused.isPresent()) {
                return new Outcome(ErrorCode.INVALID_CONFIG, refused.get());
            }
        }
        return Outcome.OK;
    }

    /** Turns one change into a name to set or delete; the refusal, when Kafka would refuse it. */
    private static Optional<Outcome> resolve(TopicInfo topic, Change change, Map<String, String> set,
            Set<String> delete) {
        String name = change.name();
        if (TOPIC_REPLICATION_THROTTLES.contains(name)) {
            return change.operation() == OP_DELETE ? Optional.empty() : refuse(ErrorCode.INVALID_CONFIG, NO_THROTTLES);
        }
        if (!TopicConfigs.NAMES.contains(name)) {
            return refuse(ErrorCode.INVALID_CONFIG, TopicConfigs.invalidReason(name, "").orElse(name));
        }
        String value;
        switch (change.operation()) {
            case OP_SET:
                value = change.value();
                break;
            case OP_DELETE:
                delete.add(name);
                return Optional.empty();
            case OP_APPEND:
            case OP_SUBTRACT:
                if (!TopicConfigs.isList(name)) {
                    return refuse(ErrorCode.INVALID_CONFIG, "Config value " + (change.operation() == OP_APPEND
                            ? "append" : "subtract") + " is not allowed for config key: " + name);
                }
                if (change.value() == null) {
                    return refuse(ErrorCode.INVALID_CONFIG, "null value not supported for topic config " + name);
                }
                value = applyToList(TopicConfigs.currentValue(topic, name), change.value(),
                        change.operation() == OP_APPEND);
                if (value.isEmpty()) {
                    return refuse(ErrorCode.INVALID_CONFIG, "Invalid value for configuration " + name
                            + ": it would be empty");
                }
                break;
            default:
                return refuse(ErrorCode.INVALID_REQUEST, "Unknown config operation " + change.operation());
        }
        Optional<String> invalid = TopicConfigs.invalidReason(name, value);
        if (invalid.isPresent()) {
            return refuse(ErrorCode.INVALID_CONFIG, invalid.get());
        }
        set.put(name, value);
        return Optional.empty();
    }

    /** A comma-separated list with each item of {@code items} added (in order, once) or removed. */
    static String applyToList(String current, String items, boolean add) {
        List<String> result = new ArrayList<>();
        for (String item : current.split(",")) {
            if (!item.isBlank() && !result.contains(item.trim())) {
                result.add(item.trim());
            }
        }
        for (String item : items.split(",")) {
            String trimmed = item.trim();
            if (add && !trimmed.isEmpty() && !result.contains(trimmed)) {
                result.add(trimmed);
            } else if (!add) {
                result.remove(trimmed);
            }
        }
        return String.join(",", result);
    }

    private static Optional<Outcome> refuse(ErrorCode error, String message) {
        return Optional.of(new Outcome(error, message));
    }

    private static CompletableFuture<Outcome> done(ErrorCode error, String message) {
        return CompletableFuture.completedFuture(new Outcome(error, message));
    }
}
