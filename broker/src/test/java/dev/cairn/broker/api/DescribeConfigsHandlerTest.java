package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigKey;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.DescribeConfigsRequest;
import dev.cairn.protocol.message.DescribeConfigsRequest.DescribeConfigsResource;
import dev.cairn.protocol.message.DescribeConfigsResponse;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsResult;
import dev.cairn.protocol.message.DescribeConfigsResponse.DescribeConfigsSynonym;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DescribeConfigs v1-4 (KIP-133; synonyms KIP-226; config types and documentation KIP-569): a topic's configs with
 * the source of each value (its own, the configured broker value it inherits, or the default), the selection by
 * configuration keys (unknown names absent, as in Kafka's ConfigHelper), this broker's own keys, Kafka's errors for
 * an unknown topic, another broker's id and unsupported resource types, and the request limits.
 */
class DescribeConfigsHandlerTest {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final byte BROKER_LOGGER = 8;
    private static final byte GROUP = 32;
    private static final byte TOPIC_CONFIG = 1;
    private static final byte DYNAMIC_DEFAULT_BROKER_CONFIG = 3;
    private static final byte STATIC_BROKER_CONFIG = 4;
    private static final byte DEFAULT_CONFIG = 5;
    private static final byte TYPE_STRING = 2;
    private static final byte TYPE_INT = 3;
    private static final byte TYPE_LONG = 5;
    private static final byte TYPE_LIST = 7;
    private static final String SEGMENT_BYTES_SET = "2097152";

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1, 2)
            .withTopic("orders", 2, 1, Map.of("retention.ms", "3600000"))
            .withTopic("plain", 1, 1);
    /** This broker sets log.segment.bytes and leaves every other key at its default. */
    private final BrokerConfig config = BrokerConfig.fromMap(Map.of("log.segment.bytes", SEGMENT_BYTES_SET));
    private final DescribeConfigsHandler handler = new DescribeConfigsHandler(metadata, config,
            new FakeBrokerLoggers().with("dev.cairn.broker"));

    private static Struct resource(byte type, String name, List<String> keys) {
        return new Struct(DescribeConfigsResource.SCHEMA).set(DescribeConfigsResource.RESOURCE_TYPE, type)
                .set(DescribeConfigsResource.RESOURCE_NAME, name)
                .set(DescribeConfigsResource.CONFIGURATION_KEYS, keys);
    }

    private List<Struct> describe(int version, boolean synonyms, boolean documentation, Struct... resources) {
        Struct body = new Struct(DescribeConfigsRequest.SCHEMA)
                .set(DescribeConfigsRequest.RESOURCES, List.of(resources))
                .set(DescribeConfigsRequest.INCLUDE_SYNONYMS, synonyms)
                .set(DescribeConfigsRequest.INCLUDE_DOCUMENTATION, documentation);
        Struct response = call(handler, request(ApiKey.DESCRIBE_CONFIGS, version, body));
        assertEquals(0, response.get(DescribeConfigsResponse.THROTTLE_TIME_MS));
        return response.get(DescribeConfigsResponse.RESULTS);
    }

    private static Map<String, Struct> byName(Struct result) {
        Map<String, Struct> configs = new LinkedHashMap<>();
        for (Struct entry : result.get(DescribeConfigsResult.CONFIGS)) {
            configs.put(entry.get(DescribeConfigsResourceResult.NAME), entry);
        }
        return configs;
    }

    private static List<String> synonyms(Struct entry) {
        List<String> listed = new ArrayList<>();
        for (Struct synonym : entry.get(DescribeConfigsResourceResult.SYNONYMS)) {
            listed.add(synonym.get(DescribeConfigsSynonym.SOURCE) + ":" + synonym.get(DescribeConfigsSynonym.NAME)
                    + "=" + synonym.get(DescribeConfigsSynonym.VALUE));
        }
        return listed;
    }

    private static void assertEntry(Struct entry, String value, byte source) {
        String name = entry.get(DescribeConfigsResourceResult.NAME);
        assertEquals(value, entry.get(DescribeConfigsResourceResult.VALUE), name);
        assertEquals(source, entry.get(DescribeConfigsResourceResult.CONFIG_SOURCE), name);
        assertFalse(entry.get(DescribeConfigsResourceResult.IS_SENSITIVE), name);
    }

    private static void assertError(Struct result, ErrorCode error, String messagePart) {
        assertEquals(error.code(), result.get(DescribeConfigsResult.ERROR_CODE));
        String message = result.get(DescribeConfigsResult.ERROR_MESSAGE);
        assertTrue(message != null && message.contains(messagePart), message);
        assertEquals(List.of(), result.get(DescribeConfigsResult.CONFIGS));
    }

    /** Every topic config Cairn accepts, its own value first, else what it inherits (KIP-226 sources). */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void topicListsEverySupportedConfigWithItsSource(int version) {
        Struct result = describe(version, false, false, resource(TOPIC, "orders", null)).get(0);

        assertEquals(ErrorCode.NONE.code(), result.get(DescribeConfigsResult.ERROR_CODE));
        assertNull(result.get(DescribeConfigsResult.ERROR_MESSAGE));
        assertEquals(TOPIC, result.get(DescribeConfigsResult.RESOURCE_TYPE));
        assertEquals("orders", result.get(DescribeConfigsResult.RESOURCE_NAME));
        Map<String, Struct> configs = byName(result);
        assertEquals(TopicConfigs.NAMES, List.copyOf(configs.keySet()));
        assertEntry(configs.get("retention.ms"), "3600000", TOPIC_CONFIG);
        assertEntry(configs.get("segment.bytes"), SEGMENT_BYTES_SET, STATIC_BROKER_CONFIG);
        assertEntry(configs.get("retention.bytes"), "-1", DEFAULT_CONFIG);
        assertEntry(configs.get("segment.ms"), "604800000", DEFAULT_CONFIG);
        assertEntry(configs.get("max.message.bytes"), "1048588", DEFAULT_CONFIG);
        assertEntry(configs.get("cleanup.policy"), "delete", DEFAULT_CONFIG);
        assertEntry(configs.get("message.timestamp.type"), "CreateTime", DEFAULT_CONFIG);
        for (Struct entry : configs.values()) {
            assertFalse(entry.get(DescribeConfigsResourceResult.READ_ONLY), "topic configs can be set");
            assertEquals(List.of(), entry.get(DescribeConfigsResourceResult.SYNONYMS), "not asked for");
            if (version >= 3) {
                assertNull(entry.get(DescribeConfigsResourceResult.DOCUMENTATION), "not asked for");
            }
        }
    }

    /** KIP-569: config types from v3, as Kafka types these topic configs. */
    @Test
    void topicConfigTypesAreKafkas() {
        Map<String, Struct> configs = byName(describe(3, false, false, resource(TOPIC, "plain", null)).get(0));

        assertEquals(TYPE_LONG, configs.get("retention.ms").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_LONG, configs.get("retention.bytes").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_INT, configs.get("segment.bytes").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_LONG, configs.get("segment.ms").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_INT, configs.get("max.message.bytes").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_LIST, configs.get("cleanup.policy").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_STRING,
                configs.get("message.timestamp.type").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEntry(configs.get("retention.ms"), "604800000", DEFAULT_CONFIG);
    }

    /** KIP-226: synonyms in precedence order, the topic's value, the configured broker value, then the default. */
    @Test
    void synonymsListEverySourceInPrecedenceOrder() {
        Map<String, Struct> configs = byName(describe(4, true, false, resource(TOPIC, "orders", null)).get(0));

        assertEquals(List.of("1:retention.ms=3600000", "5:log.retention.ms=604800000"),
                synonyms(configs.get("retention.ms")));
        assertEquals(List.of("4:log.segment.bytes=" + SEGMENT_BYTES_SET, "5:log.segment.bytes=1073741824"),
                synonyms(configs.get("segment.bytes")));
        assertEquals(List.of("5:message.max.bytes=1048588"), synonyms(configs.get("max.message.bytes")));
        assertEquals(List.of("5:log.cleanup.policy=delete"), synonyms(configs.get("cleanup.policy")));
    }

    /** KIP-569: documentation only when asked for, in the versions that have it. */
    @Test
    void documentationOnlyWhenAskedFor() {
        Map<String, Struct> topic = byName(describe(4, false, true, resource(TOPIC, "plain", null)).get(0));
        Map<String, Struct> broker = byName(describe(4, false, true, resource(BROKER, "1", null)).get(0));

        String retention = topic.get("retention.ms").get(DescribeConfigsResourceResult.DOCUMENTATION);
        assertTrue(retention != null && !retention.isBlank(), retention);
        assertEquals(BrokerConfig.NODE_ID.doc(), broker.get("node.id").get(DescribeConfigsResourceResult.DOCUMENTATION));
    }

    /** Listed keys select configs; names the topic does not have are absent, not errors (Kafka's ConfigHelper). */
    @Test
    void configurationKeysSelectAndUnknownNamesAreAbsent() {
        Struct result = describe(4, false, false,
                resource(TOPIC, "orders", List.of("retention.ms", "no.such.config", "retention.ms"))).get(0);

        assertEquals(ErrorCode.NONE.code(), result.get(DescribeConfigsResult.ERROR_CODE));
        assertEquals(List.of("retention.ms"), List.copyOf(byName(result).keySet()));
        Struct none = describe(4, false, false, resource(TOPIC, "orders", List.of("compression.gzip.level")))
                .get(0);
        assertEquals(List.of(), none.get(DescribeConfigsResult.CONFIGS));
    }

    @Test
    void unknownTopicIsUnknownTopicOrPartitionAndTheOthersAreStillDescribed() {
        List<Struct> results = describe(4, false, false, resource(TOPIC, "missing", null),
                resource(TOPIC, "plain", List.of("retention.ms")));

        assertError(results.get(0), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "missing");
        assertEquals("missing", results.get(0).get(DescribeConfigsResult.RESOURCE_NAME));
        assertEquals(ErrorCode.NONE.code(), results.get(1).get(DescribeConfigsResult.ERROR_CODE));
        assertEquals(1, results.get(1).get(DescribeConfigsResult.CONFIGS).size());
    }

    /**
     * This broker's keys: read-only but for the cluster-wide dynamic ones, set ones STATIC_BROKER_CONFIG, the rest
     * DEFAULT_CONFIG.
     */
    @Test
    void brokerListsItsOwnKeysReadOnly() {
        Struct result = describe(4, true, false, resource(BROKER, "1", null)).get(0);

        assertEquals(ErrorCode.NONE.code(), result.get(DescribeConfigsResult.ERROR_CODE));
        Map<String, Struct> configs = byName(result);
        assertEquals(BrokerConfig.KEYS.stream().map(ConfigKey::name).toList(), List.copyOf(configs.keySet()));
        for (Struct entry : configs.values()) {
            String name = entry.get(DescribeConfigsResourceResult.NAME);
            assertEquals(!dev.cairn.broker.cluster.BrokerDefaults.names().contains(name),
                    entry.get(DescribeConfigsResourceResult.READ_ONLY), name);
        }
        assertEntry(configs.get("log.segment.bytes"), SEGMENT_BYTES_SET, STATIC_BROKER_CONFIG);
        assertEquals(List.of("4:log.segment.bytes=" + SEGMENT_BYTES_SET, "5:log.segment.bytes=1073741824"),
                synonyms(configs.get("log.segment.bytes")));
        assertEntry(configs.get("node.id"), "1", DEFAULT_CONFIG);
        assertEquals(TYPE_INT, configs.get("node.id").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals((byte) 1, configs.get("auto.create.topics.enable").get(DescribeConfigsResourceResult.CONFIG_TYPE),
                "BOOLEAN");
        assertEquals(TYPE_LONG, configs.get("log.retention.ms").get(DescribeConfigsResourceResult.CONFIG_TYPE));
        assertEquals(TYPE_STRING, configs.get("listeners").get(DescribeConfigsResourceResult.CONFIG_TYPE));
    }

    /**
     * A cluster-wide dynamic default (kafka-configs --entity-default) comes first in a broker key's synonyms and in
     * what a topic without its own value inherits; the default resource ("") lists exactly the dynamic defaults.
     */
    @Test
    void dynamicDefaultsOverrideTheFileAndAreListedOnTheDefaultResource() {
        assertEquals(List.of(), describe(4, false, false, resource(BROKER, "", null)).get(0)
                .get(DescribeConfigsResult.CONFIGS));
        metadata.submit(new dev.cairn.broker.cluster.MetadataCommand.AlterBrokerDefaults(false,
                Map.of("log.segment.bytes", "4194304", "log.retention.ms", "60000"), java.util.Set.of())).join();

        Map<String, Struct> defaults = byName(describe(4, false, false, resource(BROKER, "", null)).get(0));
        assertEquals(java.util.Set.of("log.segment.bytes", "log.retention.ms"), defaults.keySet());
        assertEntry(defaults.get("log.retention.ms"), "60000", DYNAMIC_DEFAULT_BROKER_CONFIG);
        Struct segment = byName(describe(4, true, false, resource(BROKER, "1", List.of("log.segment.bytes")))
                .get(0)).get("log.segment.bytes");
        assertEntry(segment, "4194304", DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertEquals(List.of("3:log.segment.bytes=4194304", "4:log.segment.bytes=" + SEGMENT_BYTES_SET,
                "5:log.segment.bytes=1073741824"), synonyms(segment));
        Map<String, Struct> plain = byName(describe(4, false, false, resource(TOPIC, "plain", null)).get(0));
        assertEntry(plain.get("segment.bytes"), "4194304", DYNAMIC_DEFAULT_BROKER_CONFIG);
        Map<String, Struct> orders = byName(describe(4, false, false, resource(TOPIC, "orders", null)).get(0));
        assertEntry(orders.get("retention.ms"), "3600000", TOPIC_CONFIG);
    }

    @Test
    void brokerKeysCanBeSelected() {
        Struct result = describe(2, false, false, resource(BROKER, "1", List.of("message.max.bytes", "nope")))
                .get(0);

        assertEquals(List.of("message.max.bytes"), List.copyOf(byName(result).keySet()));
        assertEntry(byName(result).get("message.max.bytes"), "1048588", DEFAULT_CONFIG);
    }

    /** Kafka's Admin sends a broker resource to that broker, so another id here is a misrouted request. */
    @Test
    void anotherBrokersIdOrANonNumericNameIsInvalid() {
        List<Struct> results = describe(4, false, false, resource(BROKER, "2", null),
                resource(BROKER, "one", null));

        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "expected 1");
        assertError(results.get(1), ErrorCode.INVALID_REQUEST, "must be an integer");
    }

    /** KIP-412: this broker's loggers with their effective levels, by this broker's id only. */
    @Test
    void brokerLoggersListEveryLoggerWithItsLevel() {
        List<Struct> results = describe(4, false, false, resource(BROKER_LOGGER, "1", null),
                resource(BROKER_LOGGER, "1", List.of("dev.cairn.broker")), resource(BROKER_LOGGER, "2", null));

        Map<String, Struct> all = byName(results.get(0));
        assertEquals(List.of("dev.cairn.broker", "root"), List.copyOf(all.keySet()));
        assertEquals("INFO", all.get("root").get(DescribeConfigsResourceResult.VALUE));
        assertEquals((byte) 6, all.get("root").get(DescribeConfigsResourceResult.CONFIG_SOURCE));
        assertFalse(all.get("root").get(DescribeConfigsResourceResult.READ_ONLY));
        assertEquals(List.of("dev.cairn.broker"), List.copyOf(byName(results.get(1)).keySet()));
        assertError(results.get(2), ErrorCode.INVALID_REQUEST, "Unexpected broker id");
    }

    @Test
    void otherResourceTypesAreInvalidPerResource() {
        List<Struct> results = describe(4, false, false, resource((byte) 16, "all", null),
                resource((byte) 99, "x", null), resource(TOPIC, "plain", null));

        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "resource type CLIENT_METRICS is not supported");
        assertEquals((byte) 16, results.get(0).get(DescribeConfigsResult.RESOURCE_TYPE));
        assertError(results.get(1), ErrorCode.INVALID_REQUEST, "99");
        assertEquals(ErrorCode.NONE.code(), results.get(2).get(DescribeConfigsResult.ERROR_CODE));
    }

    /** Kafka 4.4's group configs are all for group protocols Cairn does not serve; a classic group has none. */
    @Test
    void aGroupHasNoConfigsAndAnEmptyGroupIdIsInvalid() {
        List<Struct> results = describe(4, true, true, resource(GROUP, "g", null),
                resource(GROUP, "never-seen", List.of("consumer.session.timeout.ms")), resource(GROUP, "", null));

        for (Struct result : results.subList(0, 2)) {
            assertEquals(ErrorCode.NONE.code(), result.get(DescribeConfigsResult.ERROR_CODE));
            assertEquals(GROUP, result.get(DescribeConfigsResult.RESOURCE_TYPE));
            assertEquals(List.of(), result.get(DescribeConfigsResult.CONFIGS));
        }
        assertEquals("g", results.get(0).get(DescribeConfigsResult.RESOURCE_NAME));
        assertError(results.get(2), ErrorCode.INVALID_REQUEST, "Group name must not be empty");
    }

    @Test
    void tooManyResourcesAreEachAnsweredInvalidWithoutConfigs() {
        Struct[] resources = Collections.nCopies(Limits.DESCRIBE_CONFIGS_RESOURCES_MAX + 1,
                resource(TOPIC, "plain", null)).toArray(new Struct[0]);

        List<Struct> results = describe(4, false, false, resources);

        assertEquals(resources.length, results.size());
        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "at most " + Limits.DESCRIBE_CONFIGS_RESOURCES_MAX);
        assertError(results.get(resources.length - 1), ErrorCode.INVALID_REQUEST, "resources");
        assertEquals(Limits.DESCRIBE_CONFIGS_RESOURCES_MAX,
                describe(4, false, false, Collections.nCopies(Limits.DESCRIBE_CONFIGS_RESOURCES_MAX,
                        resource(TOPIC, "plain", List.of("retention.ms"))).toArray(new Struct[0])).stream()
                        .filter(r -> r.get(DescribeConfigsResult.ERROR_CODE) == ErrorCode.NONE.code()).count(),
                "exactly the limit is described");
    }

    @Test
    void tooManyKeysInOneResourceIsInvalidForThatResource() {
        List<String> keys = Collections.nCopies(Limits.DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX + 1, "retention.ms");

        List<Struct> results = describe(4, false, false, resource(TOPIC, "plain", keys),
                resource(TOPIC, "plain", keys.subList(0, Limits.DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX)));

        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "configuration keys");
        assertEquals(ErrorCode.NONE.code(), results.get(1).get(DescribeConfigsResult.ERROR_CODE));
    }
}
