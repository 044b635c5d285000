package dev.cairn.broker.api;

import static dev.cairn.broker.api.ApiTestSupport.call;
import static dev.cairn.broker.api.ApiTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.AlterConfigsRequest;
import dev.cairn.protocol.message.AlterConfigsResponse;
import dev.cairn.protocol.message.IncrementalAlterConfigsRequest;
import dev.cairn.protocol.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import dev.cairn.protocol.message.IncrementalAlterConfigsRequest.AlterableConfig;
import dev.cairn.protocol.message.IncrementalAlterConfigsResponse;
import dev.cairn.protocol.message.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * IncrementalAlterConfigs v0-1 and AlterConfigs v0-2 against the real metadata core: set, delete, append and
 * subtract with Kafka's rules and errors, validate-only, replace semantics of AlterConfigs, unknown topics, broker
 * and other resource types, duplicates and the request limit.
 */
class AlterConfigsHandlersTest {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final byte BROKER_LOGGER = 8;
    private static final byte CLIENT_METRICS = 16;

    private final FakeMetadataService metadata = new FakeMetadataService().withBrokers(1)
            .withTopic("orders", 2, 1, Map.of("retention.ms", "3600000", "max.message.bytes", "100000"));
    private final FakeBrokerLoggers loggers = new FakeBrokerLoggers().with("dev.cairn.broker");
    private final IncrementalAlterConfigsHandler incremental = new IncrementalAlterConfigsHandler(metadata, 1,
            loggers);
    private final AlterConfigsHandler legacy = new AlterConfigsHandler(metadata, 1, loggers);

    private static Struct op(String name, int operation, String value) {
        return new Struct(AlterableConfig.SCHEMA).set(AlterableConfig.NAME, name)
                .set(AlterableConfig.CONFIG_OPERATION, (byte) operation).set(AlterableConfig.VALUE, value);
    }

    private static Struct resource(byte type, String name, Struct... configs) {
        return new Struct(AlterConfigsResource.SCHEMA).set(AlterConfigsResource.RESOURCE_TYPE, type)
                .set(AlterConfigsResource.RESOURCE_NAME, name).set(AlterConfigsResource.CONFIGS, List.of(configs));
    }

    private List<Struct> alter(int version, boolean validateOnly, Struct... resources) {
        Struct body = new Struct(IncrementalAlterConfigsRequest.SCHEMA)
                .set(IncrementalAlterConfigsRequest.RESOURCES, List.of(resources))
                .set(IncrementalAlterConfigsRequest.VALIDATE_ONLY, validateOnly);
        Struct response = call(incremental, request(ApiKey.INCREMENTAL_ALTER_CONFIGS, version, body));
        return response.get(IncrementalAlterConfigsResponse.RESPONSES);
    }

    private List<Struct> replace(int version, String topic, Map<String, String> configs) {
        List<Struct> entries = new ArrayList<>();
        configs.forEach((name, value) -> entries.add(new Struct(AlterConfigsRequest.AlterableConfig.SCHEMA)
                .set(AlterConfigsRequest.AlterableConfig.NAME, name)
                .set(AlterConfigsRequest.AlterableConfig.VALUE, value)));
        Struct body = new Struct(AlterConfigsRequest.SCHEMA).set(AlterConfigsRequest.RESOURCES, List.of(
                new Struct(AlterConfigsRequest.AlterConfigsResource.SCHEMA)
                        .set(AlterConfigsRequest.AlterConfigsResource.RESOURCE_TYPE, TOPIC)
                        .set(AlterConfigsRequest.AlterConfigsResource.RESOURCE_NAME, topic)
                        .set(AlterConfigsRequest.AlterConfigsResource.CONFIGS, entries)))
                .set(AlterConfigsRequest.VALIDATE_ONLY, false);
        return call(legacy, request(ApiKey.ALTER_CONFIGS, version, body)).get(AlterConfigsResponse.RESPONSES);
    }

    private Map<String, String> configs() {
        return metadata.image().topics().get("orders").configs();
    }

    private static void assertOk(Struct result) {
        assertEquals(ErrorCode.NONE.code(), result.get(AlterConfigsResourceResponse.ERROR_CODE),
                result.get(AlterConfigsResourceResponse.ERROR_MESSAGE));
        assertNull(result.get(AlterConfigsResourceResponse.ERROR_MESSAGE));
    }

    private static void assertError(Struct result, ErrorCode error, String messagePart) {
        assertEquals(error.code(), result.get(AlterConfigsResourceResponse.ERROR_CODE));
        String message = result.get(AlterConfigsResourceResponse.ERROR_MESSAGE);
        assertTrue(message != null && message.contains(messagePart), message);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void setsDeletesAppendsAndSubtracts(int version) {
        Struct result = alter(version, false, resource(TOPIC, "orders", op("segment.bytes", 0, "1048576"),
                op("retention.ms", 1, null), op("cleanup.policy", 2, "compact"))).get(0);

        assertOk(result);
        assertEquals(TOPIC, result.get(AlterConfigsResourceResponse.RESOURCE_TYPE));
        assertEquals("orders", result.get(AlterConfigsResourceResponse.RESOURCE_NAME));
        assertEquals(Map.of("segment.bytes", "1048576", "max.message.bytes", "100000",
                "cleanup.policy", "delete,compact"), configs());

        assertOk(alter(version, false, resource(TOPIC, "orders", op("cleanup.policy", 3, "delete"))).get(0));
        assertEquals("compact", configs().get("cleanup.policy"));
    }

    @Test
    void validateOnlyChangesNothing() {
        assertOk(alter(1, true, resource(TOPIC, "orders", op("retention.ms", 0, "1000"))).get(0));
        assertEquals("3600000", configs().get("retention.ms"));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void refusesWhatKafkaRefusesAndChangesNothingThen() {
        assertError(alter(1, false, resource(TOPIC, "orders", op("retention.ms", 0, "1000"),
                op("min.insync.replicaz", 0, "2"))).get(0), ErrorCode.INVALID_CONFIG, "Unknown topic config name");
        assertError(alter(1, false, resource(TOPIC, "orders", op("flush.messages", 0, "1"))).get(0),
                ErrorCode.INVALID_CONFIG, "log.flush.interval.messages on every broker");
        assertError(alter(1, false, resource(TOPIC, "orders", op("segment.bytes", 0, "12"))).get(0),
                ErrorCode.INVALID_CONFIG, "segment.bytes");
        assertError(alter(1, false, resource(TOPIC, "orders", op("retention.ms", 2, "5"))).get(0),
                ErrorCode.INVALID_CONFIG, "append is not allowed");
        assertError(alter(1, false, resource(TOPIC, "orders", op("cleanup.policy", 3, "delete"))).get(0),
                ErrorCode.INVALID_CONFIG, "empty");
        assertError(alter(1, false, resource(TOPIC, "orders", op("retention.ms", 7, "5"))).get(0),
                ErrorCode.INVALID_REQUEST, "operation");
        assertError(alter(1, false, resource(TOPIC, "orders", op("retention.ms", 0, "5"),
                op("retention.ms", 1, null))).get(0), ErrorCode.INVALID_REQUEST, "duplicate config keys");
        assertError(alter(1, false, resource(TOPIC, "missing", op("retention.ms", 0, "5"))).get(0),
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "missing");
        assertEquals("3600000", configs().get("retention.ms"));
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void brokerConfigsAndOtherTypesAreRefusedWithTheWayToChangeThem() {
        List<Struct> results = alter(1, false, resource(BROKER, "1", op("message.max.bytes", 0, "5")),
                resource(CLIENT_METRICS, "all", op("interval.ms", 0, "5")),
                resource(BROKER, "", op("num.io.threads", 0, "5")));
        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "configuration file");
        assertError(results.get(1), ErrorCode.INVALID_REQUEST, "not supported");
        assertError(results.get(2), ErrorCode.INVALID_REQUEST, "configuration file");
        assertError(alter(1, false, resource(BROKER, "1", op("log.retention.ms", 0, "5"))).get(0),
                ErrorCode.INVALID_REQUEST, "whole cluster only");
    }

    /** kafka-configs --entity-type brokers --entity-default: the log defaults change cluster-wide, checked first. */
    @Test
    void clusterWideLogDefaultsChangeAtRunTime() {
        assertOk(alter(1, false, resource(BROKER, "", op("log.retention.ms", 0, "60000"),
                op("log.segment.bytes", 0, "4194304"))).get(0));
        assertEquals(Map.of("log.retention.ms", "60000", "log.segment.bytes", "4194304"),
                metadata.image().brokerDefaults());
        assertOk(alter(1, false, resource(BROKER, "", op("log.retention.ms", 1, null))).get(0));
        assertEquals(Map.of("log.segment.bytes", "4194304"), metadata.image().brokerDefaults());
        assertError(alter(1, false, resource(BROKER, "", op("log.segment.bytes", 0, "12"))).get(0),
                ErrorCode.INVALID_CONFIG, "log.segment.bytes");
        assertError(alter(1, false, resource(BROKER, "", op("log.retention.ms", 0, "soon"))).get(0),
                ErrorCode.INVALID_CONFIG, "log.retention.ms");
        assertError(alter(1, false, resource(BROKER, "", op("log.retention.ms", 2, "1"))).get(0),
                ErrorCode.INVALID_CONFIG, "append");
        assertError(alter(1, false, resource(BROKER, "", op("log.retention.ms", 0, "1"),
                op("log.retention.ms", 1, null))).get(0), ErrorCode.INVALID_REQUEST, "duplicate");
        assertOk(alter(1, true, resource(BROKER, "", op("log.segment.ms", 0, "1000"))).get(0));
        assertEquals(Map.of("log.segment.bytes", "4194304"), metadata.image().brokerDefaults(), "validate only");
    }

    /**
     * Replication throttles, which {@code kafka-reassign-partitions --verify} deletes: deleting them is answered as
     * done (Cairn never holds one), setting them is refused with the reason.
     */
    @Test
    void replicationThrottlesAreDeletedAsNoOpsAndRefusedWhenSet() {
        List<Struct> results = alter(1, false,
                resource(BROKER, "1", op("leader.replication.throttled.rate", 1, null),
                        op("follower.replication.throttled.rate", 1, null),
                        op("replica.alter.log.dirs.io.max.bytes.per.second", 1, null)),
                resource(TOPIC, "orders", op("leader.replication.throttled.replicas", 1, null),
                        op("follower.replication.throttled.replicas", 1, null)),
                resource(BROKER, "2", op("leader.replication.throttled.rate", 0, "1000")));
        assertOk(results.get(0));
        assertOk(results.get(1));
        assertError(results.get(2), ErrorCode.INVALID_CONFIG, "does not throttle replication");
        assertError(alter(1, false, resource(TOPIC, "orders", op("leader.replication.throttled.replicas", 0,
                "*"))).get(0), ErrorCode.INVALID_CONFIG, "does not throttle replication");
        assertEquals("3600000", configs().get("retention.ms"));
        assertEquals(false, configs().containsKey("leader.replication.throttled.replicas"));
    }

    /** KIP-412: this broker's log levels change until it stops; Kafka's checks apply first, all or nothing. */
    @Test
    void brokerLoggersSetAndResetLevels() {
        assertOk(alter(1, false, resource(BROKER_LOGGER, "1", op("dev.cairn.broker", 0, "DEBUG"))).get(0));
        assertEquals("DEBUG", loggers.levels().get("dev.cairn.broker"));
        assertOk(alter(1, false, resource(BROKER_LOGGER, "1", op("dev.cairn.broker", 1, null))).get(0));
        assertEquals("INFO", loggers.levels().get("dev.cairn.broker"), "inherited from root again");

        assertError(alter(1, false, resource(BROKER_LOGGER, "1", op("dev.cairn.broker", 0, "DEBUG"),
                op("no.such.logger", 0, "DEBUG"))).get(0), ErrorCode.INVALID_CONFIG, "does not exist");
        assertError(alter(1, false, resource(BROKER_LOGGER, "1", op("dev.cairn.broker", 0, "LOUD"))).get(0),
                ErrorCode.INVALID_CONFIG, "not a supported log level");
        assertError(alter(1, false, resource(BROKER_LOGGER, "1", op("root", 1, null))).get(0),
                ErrorCode.INVALID_REQUEST, "root logger");
        assertError(alter(1, false, resource(BROKER_LOGGER, "1", op("root", 2, "DEBUG"))).get(0),
                ErrorCode.INVALID_REQUEST, "not allowed");
        assertError(alter(1, false, resource(BROKER_LOGGER, "2", op("root", 0, "DEBUG"))).get(0),
                ErrorCode.INVALID_REQUEST, "Unexpected broker id");
        assertEquals("INFO", loggers.levels().get("dev.cairn.broker"), "refused requests change nothing");
        assertOk(alter(1, true, resource(BROKER_LOGGER, "1", op("root", 0, "WARN"))).get(0));
        assertEquals("INFO", loggers.levels().get("root"), "validate-only changes nothing");
    }

    @Test
    void aResourceNamedTwiceIsRefusedEachTime() {
        List<Struct> results = alter(1, false, resource(TOPIC, "orders", op("retention.ms", 0, "5")),
                resource(TOPIC, "orders", op("segment.ms", 0, "5")));
        assertError(results.get(0), ErrorCode.INVALID_REQUEST, "duplicate resources");
        assertError(results.get(1), ErrorCode.INVALID_REQUEST, "duplicate resources");
        assertTrue(metadata.submitted().isEmpty());
    }

    @Test
    void tooManyResourcesAreAllRefused() {
        Struct[] resources = new Struct[Limits.ALTER_CONFIGS_RESOURCES_MAX + 1];
        for (int i = 0; i < resources.length; i++) {
            resources[i] = resource(TOPIC, "t" + i, op("retention.ms", 0, "5"));
        }
        List<Struct> results = alter(1, false, resources);
        assertEquals(resources.length, results.size());
        results.forEach(result -> assertError(result, ErrorCode.INVALID_REQUEST, "at most"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void alterConfigsReplacesTheWholeSet(int version) {
        Struct result = replace(version, "orders", Map.of("segment.ms", "60000")).get(0);

        assertEquals(ErrorCode.NONE.code(), result.get(AlterConfigsResponse.AlterConfigsResourceResponse.ERROR_CODE));
        assertEquals(Map.of("segment.ms", "60000"), configs());
        MetadataCommand.AlterTopicConfigs command = (MetadataCommand.AlterTopicConfigs) metadata.submitted().get(0);
        assertTrue(command.replace());
    }
}
