package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerDefaults;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigKey;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeConfigsRequest;
import dev.cairn.protocol.message.DescribeConfigsRequest.DescribeConfigsResource;
import dev.cairn.protocol.message.DescribeConfigsResponse;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResult;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsSynonym;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeConfigs (key 32), versions 1-4 (KIP-133; synonyms KIP-226; types and documentation KIP-569), as
 * {@code kafka-topics --describe}, {@code kafka-configs --describe} and Admin.describeConfigs use it. Any broker
 * answers, from its metadata image and its own configuration, as in Kafka.
 * <ul>
 *   <li>TOPIC: the topic configs Cairn accepts ({@link TopicConfigs#DESCRIPTIONS}), each with the topic's own value
 *   (source TOPIC_CONFIG) or the broker value it inherits (DYNAMIC_DEFAULT_BROKER_CONFIG when set cluster-wide at
 *   run time, STATIC_BROKER_CONFIG when the broker key was set, DEFAULT_CONFIG otherwise); writable, since they are
 *   topic settings. An unknown topic is answered UNKNOWN_TOPIC_OR_PARTITION.</li>
 *   <li>BROKER: this broker's keys ({@link BrokerConfig#KEYS}), read-only except the few that change at run time
 *   cluster-wide ({@link BrokerDefaults}). The name must be this node's id, or empty (Kafka's default broker
 *   resource, which lists the dynamic defaults set on it); another id is answered INVALID_REQUEST, since Kafka's
 *   Admin sends a broker resource to that broker.</li>
 *   <li>GROUP: no configs. Kafka 4.4's group configs ({@code consumer.*}, {@code share.*}, {@code streams.*})
 *   all belong to the group protocols of KIP-848, KIP-932 and KIP-1071, which Cairn does not serve; its groups are
 *   classic groups, which have no group-level configs in Kafka either. So any group id gets an empty list rather
 *   than values for settings that would change nothing (an empty id is INVALID_REQUEST).</li>
 *   <li>BROKER_LOGGER (KIP-412, {@code kafka-configs --entity-type broker-loggers}): this broker's loggers with
 *   their effective levels; the name must be this node's id.</li>
 *   <li>Any other type (CLIENT_METRICS) is answered INVALID_REQUEST for that resource.</li>
 * </ul>
 * Configuration keys, when listed, select configs by name; names Cairn does not have are simply absent, as in Kafka.
 * Synonyms, when asked for, list every source of a config's value, the effective one first, as Kafka does. Nothing
 * Cairn holds is secret, so no config is marked sensitive. A request naming more than
 * {@link Limits#DESCRIBE_CONFIGS_RESOURCES_MAX} resources, or a resource listing more than
 * {@link Limits#DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX} keys, is answered INVALID_REQUEST without describing it.
 */
public final class DescribeConfigsHandler implements RequestHandler {
    /** Kafka's resource type ids (ConfigResource.Type). */
    static final byte RESOURCE_TYPE_TOPIC = 2;
    static final byte RESOURCE_TYPE_BROKER = 4;
    static final byte RESOURCE_TYPE_BROKER_LOGGER = 8;
    static final byte RESOURCE_TYPE_GROUP = 32;

    private final MetadataService metadata;
    private final BrokerConfig config;
    private final BrokerLoggers loggers;

    /** @param loggers this broker's log levels, for BROKER_LOGGER resources */
    public DescribeConfigsHandler(MetadataService metadata, BrokerConfig config, BrokerLoggers loggers) {
        this.metadata = metadata;
        this.config = config;
        this.loggers = loggers;
    }

    /** One source of a config's value. */
    private record Synonym(String name, String value, ConfigSource source) {
    }

    /** What the request asks for besides the resources themselves. */
    private record Options(boolean includeSynonyms, boolean includeDocumentation) {
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        Options options = new Options(body.get(DescribeConfigsRequest.INCLUDE_SYNONYMS),
                body.get(DescribeConfigsRequest.INCLUDE_DOCUMENTATION));
        List<Struct> resources = body.get(DescribeConfigsRequest.RESOURCES);
        // Over the limit, every resource still gets a result (Admin fails a request missing one), but an error
        // without configs: the response then grows only with the request, which the frame limit bounds.
        String tooMany = resources.size() <= Limits.DESCRIBE_CONFIGS_RESOURCES_MAX ? null
                : "a DescribeConfigs request may name at most " + Limits.DESCRIBE_CONFIGS_RESOURCES_MAX
                        + " resources; this one names " + resources.size();
        List<Struct> results = new ArrayList<>(resources.size());
        for (Struct resource : resources) {
            ErrorCode denied = denied(context.session(), resource);
            results.add(tooMany != null ? error(resource, ErrorCode.INVALID_REQUEST, tooMany)
                    : denied != null ? error(resource, denied, "Authorization failed.")
                    : describe(resource, options));
        }
        return CompletableFuture.completedFuture(new Struct(DescribeConfigsResponse.SCHEMA)
                .set(DescribeConfigsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeConfigsResponse.RESULTS, results));
    }

    /** Kafka's check: DESCRIBE_CONFIGS on the topic, the cluster (for a broker) or the group; null when allowed. */
    private static ErrorCode denied(ConnectionSession session, Struct resource) {
        String name = resource.get(DescribeConfigsResource.RESOURCE_NAME);
        return switch (resource.get(DescribeConfigsResource.RESOURCE_TYPE)) {
            case RESOURCE_TYPE_TOPIC -> session.allowedOnTopic(AclOperation.DESCRIBE_CONFIGS, name) ? null
                    : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
            case RESOURCE_TYPE_BROKER, RESOURCE_TYPE_BROKER_LOGGER ->
                    session.allowedOnCluster(AclOperation.DESCRIBE_CONFIGS) ? null
                    : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
            case RESOURCE_TYPE_GROUP -> session.allowedOnGroup(AclOperation.DESCRIBE_CONFIGS, name) ? null
                    : ErrorCode.GROUP_AUTHORIZATION_FAILED;
            default -> null;
        };
    }

    private Struct describe(Struct resource, Options options) {
        List<String> keys = resource.get(DescribeConfigsResource.CONFIGURATION_KEYS);
        if (keys != null && keys.size() > Limits.DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX) {
            return error(resource, ErrorCode.INVALID_REQUEST, "a DescribeConfigs resource may list at most "
                    + Limits.DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX + " configuration keys; this one lists "
                    + keys.size());
        }
        Set<String> wanted = keys == null ? null : new HashSet<>(keys);
        byte type = resource.get(DescribeConfigsResource.RESOURCE_TYPE);
        String name = resource.get(DescribeConfigsResource.RESOURCE_NAME);
        switch (type) {
            case RESOURCE_TYPE_TOPIC:
                return describeTopic(resource, name, wanted, options);
            case RESOURCE_TYPE_BROKER:
                return describeBroker(resource, name, wanted, options);
            case RESOURCE_TYPE_BROKER_LOGGER:
                return describeLoggers(resource, name, wanted, options);
            case RESOURCE_TYPE_GROUP:
                return name == null || name.isEmpty()
                        ? error(resource, ErrorCode.INVALID_REQUEST, "Group name must not be empty")
                        : ok(resource, List.of());
            default:
                return error(resource, ErrorCode.INVALID_REQUEST, "resource type " + resourceTypeName(type)
                        + " is not supported; Cairn describes TOPIC, BROKER, BROKER_LOGGER and GROUP configs");
        }
    }

    private Struct describeTopic(Struct resource, String name, Set<String> wanted, Options options) {
        TopicInfo topic = metadata.image().topics().get(name);
        if (topic == null) {
            return error(resource, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist.");
        }
        List<Struct> configs = new ArrayList<>();
        for (TopicConfigs.Description description : TopicConfigs.DESCRIPTIONS) {
            if (wanted != null && !wanted.contains(description.name())) {
                continue;
            }
            List<Synonym> synonyms = new ArrayList<>(3);
            String own = topic.configs().get(description.name());
            if (own != null) {
                synonyms.add(new Synonym(description.name(), own, ConfigSource.TOPIC_CONFIG));
            }
            if (description.brokerKey() == null) {
                synonyms.add(new Synonym(description.brokerName(), description.fixedDefault(),
                        ConfigSource.DEFAULT_CONFIG));
            } else {
                synonyms.addAll(brokerSynonyms(description.brokerKey()));
            }
            configs.add(entry(description.name(), false, synonyms, description.type(), description.doc(), options));
        }
        return ok(resource, configs);
    }

    private Struct describeBroker(Struct resource, String name, Set<String> wanted, Options options) {
        if (!name.isEmpty()) {
            int nodeId;
            try {
                nodeId = Integer.parseInt(name);
            } catch (NumberFormatException e) {
                return error(resource, ErrorCode.INVALID_REQUEST, "Broker id must be an integer, but it is: " + name);
            }
            if (nodeId != config.nodeId()) {
                return error(resource, ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected "
                        + config.nodeId() + " or empty string, but received " + name
                        + "; each broker describes only its own configs");
            }
        }
        List<Struct> configs = new ArrayList<>();
        Map<String, String> dynamic = metadata.image().brokerDefaults();
        for (ConfigKey<?> key : BrokerConfig.KEYS) {
            // The default resource ("", kafka-configs --entity-default) lists what was set on it, as Kafka's does.
            boolean listed = !name.isEmpty() || dynamic.containsKey(key.name());
            if (listed && (wanted == null || wanted.contains(key.name()))) {
                boolean readOnly = !BrokerDefaults.TOPIC_CONFIG_BY_KEY.containsKey(key);
                configs.add(entry(key.name(), readOnly, brokerSynonyms(key), ConfigType.of(key.kind()), key.doc(),
                        options));
            }
        }
        return ok(resource, configs);
    }

    /** This broker's loggers and their effective levels (KIP-412); the name must be this broker's id. */
    private Struct describeLoggers(Struct resource, String name, Set<String> wanted, Options options) {
        if (!Integer.toString(config.nodeId()).equals(name)) {
            return error(resource, ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected " + config.nodeId()
                    + ", but received " + name);
        }
        List<Struct> configs = new ArrayList<>();
        loggers.levels().forEach((logger, level) -> {
            if (wanted == null || wanted.contains(logger)) {
                configs.add(entry(logger, false, List.of(new Synonym(logger, level,
                        ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG)), ConfigType.STRING, "The level of this logger; "
                        + "IncrementalAlterConfigs sets it until the broker stops", options));
            }
        });
        return ok(resource, configs);
    }

    /**
     * The broker's value for {@code key}, in Kafka's order of precedence: the cluster-wide dynamic default if one was
     * set, the configured one if it was set, then the built-in default.
     */
    private List<Synonym> brokerSynonyms(ConfigKey<?> key) {
        // A secret is reported as set or not, never with its value (Kafka answers null and isSensitive=true).
        Synonym fallback = new Synonym(key.name(), key.sensitive() ? null : key.defaultText(),
                ConfigSource.DEFAULT_CONFIG);
        List<Synonym> synonyms = new ArrayList<>(3);
        String dynamic = metadata.image().brokerDefaults().get(key.name());
        if (dynamic != null) {
            synonyms.add(new Synonym(key.name(), dynamic, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
        if (config.isExplicit(key)) {
            synonyms.add(new Synonym(key.name(), key.sensitive() ? null : config.text(key),
                    ConfigSource.STATIC_BROKER_CONFIG));
        }
        synonyms.add(fallback);
        return synonyms;
    }

    /** A config entry whose value and source are those of its first synonym, the one in effect. */
    private static Struct entry(String name, boolean readOnly, List<Synonym> synonyms, ConfigType type, String doc,
            Options options) {
        Synonym effective = synonyms.get(0);
        List<Struct> listed = new ArrayList<>(options.includeSynonyms() ? synonyms.size() : 0);
        if (options.includeSynonyms()) {
            for (Synonym synonym : synonyms) {
                listed.add(new Struct(DescribeConfigsSynonym.SCHEMA)
                        .set(DescribeConfigsSynonym.NAME, synonym.name())
                        .set(DescribeConfigsSynonym.VALUE, synonym.value())
                        .set(DescribeConfigsSynonym.SOURCE, synonym.source().id()));
            }
        }
        return new Struct(DescribeConfigsResourceResult.SCHEMA)
                .set(DescribeConfigsResourceResult.NAME, name)
                .set(DescribeConfigsResourceResult.VALUE, effective.value())
                .set(DescribeConfigsResourceResult.READ_ONLY, readOnly)
                .set(DescribeConfigsResourceResult.CONFIG_SOURCE, effective.source().id())
                .set(DescribeConfigsResourceResult.IS_SENSITIVE, type == ConfigType.PASSWORD)
                .set(DescribeConfigsResourceResult.SYNONYMS, listed)
                .set(DescribeConfigsResourceResult.CONFIG_TYPE, type.id())
                .set(DescribeConfigsResourceResult.DOCUMENTATION, options.includeDocumentation() ? doc : null);
    }

    private static Struct ok(Struct resource, List<Struct> configs) {
        return result(resource, ErrorCode.NONE, null, configs);
    }

    private static Struct error(Struct resource, ErrorCode error, String message) {
        return result(resource, error, message, List.of());
    }

    private static Struct result(Struct resource, ErrorCode error, String message, List<Struct> configs) {
        return new Struct(DescribeConfigsResult.SCHEMA)
                .set(DescribeConfigsResult.ERROR_CODE, error.code())
                .set(DescribeConfigsResult.ERROR_MESSAGE, message)
                .set(DescribeConfigsResult.RESOURCE_TYPE, resource.get(DescribeConfigsResource.RESOURCE_TYPE))
                .set(DescribeConfigsResult.RESOURCE_NAME, resource.get(DescribeConfigsResource.RESOURCE_NAME))
                .set(DescribeConfigsResult.CONFIGS, configs);
    }

    /** Kafka's name for a resource type id (ConfigResource.Type), for error messages. */
    static String resourceTypeName(byte type) {
        return switch (type) {
            case RESOURCE_TYPE_TOPIC -> "TOPIC";
            case RESOURCE_TYPE_BROKER -> "BROKER";
            case RESOURCE_TYPE_BROKER_LOGGER -> "BROKER_LOGGER";
            case 16 -> "CLIENT_METRICS";
            case RESOURCE_TYPE_GROUP -> "GROUP";
            default -> "UNKNOWN (" + type + ")";
        };
    }
}
