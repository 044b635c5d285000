package dev.cairn.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.SchemaCodec;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.ByteBufferReadable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Checks our codec against kafka-clients 4.4 for every API, every supported version, requests and responses
 * (acceptance point 1), with seeded random bodies from {@link RandomStructs}:
 * <ol>
 *   <li>(a) kafka-clients parses our bytes and re-serialises them to exactly the same bytes;</li>
 *   <li>(b) kafka-clients' JSON rendering of what it parsed equals our rendering of our struct, field by field
 *       (records by size here; their bytes are compared in (a) and (c));</li>
 *   <li>(c) a message kafka-clients builds from that JSON, serialised by kafka-clients (with an unknown tagged
 *       field added half the time in flexible versions), decodes with ours to a struct equal to the original.</li>
 * </ol>
 * A failure names the API, version, seed and case number; rerun with the same seed to replay it.
 */
class KafkaOracleTest {
    private static final int CASES_PER_MESSAGE_VERSION = 250;
    private static final long SEED = 0x0CA1_0001L;
    /** Tags far above any tag the specs use, so Kafka writes them as unknown tagged fields. */
    private static final int UNKNOWN_TAG_MIN = 10_000;
    private static final int UNKNOWN_TAG_SPREAD = 1000;
    private static final int UNKNOWN_TAG_BYTES_MAX = 16;

    @TestFactory
    Stream<DynamicTest> everyApiVersionMatchesKafkaClients() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey apiKey : ApiKey.values()) {
            for (short version = apiKey.minVersion(); version <= apiKey.maxVersion(); version++) {
                for (boolean request : new boolean[] {true, false}) {
                    short testedVersion = version;
                    long seed = SEED + apiKey.id() * 1000L + version * 2L + (request ? 1 : 0);
                    String name = apiKey.apiName() + (request ? "Request" : "Response") + " v" + version;
                    tests.add(DynamicTest.dynamicTest(name,
                        () -> checkCases(apiKey, testedVersion, request, seed)));
                }
            }
        }
        return tests.stream();
    }

    static int caseCount() {
        int messageVersions = 0;
        for (ApiKey apiKey : ApiKey.values()) {
            messageVersions += 2 * (apiKey.maxVersion() - apiKey.minVersion() + 1);
        }
        return messageVersions * CASES_PER_MESSAGE_VERSION;
    }

    private static void checkCases(ApiKey apiKey, short version, boolean request, long seed) {
        Schema schema = request ? apiKey.requestSchema() : apiKey.responseSchema();
        boolean flexible = schema.isFlexible(version);
        RandomStructs structs = new RandomStructs(seed, false);
        Random random = structs.random();
        for (int i = 0; i < CASES_PER_MESSAGE_VERSION; i++) {
            String context = schema.name() + " v" + version + " seed=" + seed + " case=" + i;
            Struct ours = structs.message(schema, version);
            byte[] ourBytes = KafkaOracle.encode(ours, version);

            ApiMessage kafka = KafkaOracle.read(apiKey, request, ByteBuffer.wrap(ourBytes), version);
            String kafkaJson = KafkaOracle.text(KafkaOracle.toJson(kafka, version));
            assertArrayEquals(ourBytes, KafkaOracle.write(kafka, version), () -> "(a) bytes differ: " + context);

            String ourJson = KafkaOracle.text(KafkaOracle.render(ours, version, flexible, false));
            assertEquals(kafkaJson, ourJson, () -> "(b) fields differ: " + context);

            JsonNode ourJsonWithRecords = KafkaOracle.render(ours, version, flexible, true);
            ApiMessage kafkaBuilt = KafkaOracle.fromJson(apiKey, request, ourJsonWithRecords, version);
            if (flexible && random.nextBoolean()) {
                byte[] unknown = new byte[random.nextInt(UNKNOWN_TAG_BYTES_MAX)];
                random.nextBytes(unknown);
                kafkaBuilt.unknownTaggedFields().add(
                    new RawTaggedField(UNKNOWN_TAG_MIN + random.nextInt(UNKNOWN_TAG_SPREAD), unknown));
            }
            byte[] kafkaBytes = KafkaOracle.write(kafkaBuilt, version);
            Struct decoded = SchemaCodec.read(schema, version, new ByteBufferReadable(ByteBuffer.wrap(kafkaBytes)));
            assertEquals(ours, decoded, () -> "(c) decoded values differ: " + context);
        }
    }
}
