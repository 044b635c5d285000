package dev.cairn.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cairn.protocol.schema.Field;
import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.Versions;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * For every API and every version in the {@link ApiKey} table, the fields our schemas declare (names, types,
 * nullability, tagged or not, tag numbers, defaults; recursively through struct arrays) equal the fields that
 * kafka-clients 4.4's {@code common/message/<Name>Request.json} and {@code <Name>Response.json} give for that
 * version, and so do the flexible versions. Every supported version lies inside 4.4's {@code validVersions},
 * which is checked too, so no version goes untested against the 4.4 specs.
 */
class MessageSpecConformanceTest {
    private static final ObjectMapper SPEC_READER = new ObjectMapper()
            .configure(JsonParser.Feature.ALLOW_COMMENTS, true);

    @TestFactory
    Stream<DynamicTest> everySupportedVersionMatchesTheKafkaSpec() {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiKey apiKey : ApiKey.values()) {
            for (Schema schema : new Schema[] {apiKey.requestSchema(), apiKey.responseSchema()}) {
                tests.add(DynamicTest.dynamicTest(schema.name(), () -> checkMessage(apiKey, schema)));
            }
        }
        return tests.stream();
    }

    private static void checkMessage(ApiKey apiKey, Schema schema) throws IOException {
        JsonNode spec = loadSpec(schema.name());
        assertEquals(apiKey.id(), spec.get("apiKey").asInt(), "api key");
        assertEquals(spec.get("flexibleVersions").asText(), schema.flexibleVersions().toString(), "flexibleVersions");
        Versions valid = Versions.parse(spec.get("validVersions").asText());
        for (short version = apiKey.minVersion(); version <= apiKey.maxVersion(); version++) {
            assertTrue(valid.contains(version), schema.name() + " v" + version + " is not in the 4.4 spec");
            List<String> expected = new ArrayList<>();
            describeSpec(spec.get("fields"), commonStructs(spec), version, schema.name(), expected);
            List<String> actual = new ArrayList<>();
            describeOurs(schema, version, schema.name(), actual);
            assertEquals(String.join("\n", expected), String.join("\n", actual), schema.name() + " v" + version);
        }
    }

    static JsonNode loadSpec(String messageName) throws IOException {
        String resource = "common/message/" + messageName + ".json";
        try (InputStream in = MessageSpecConformanceTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource + " not found in kafka-clients");
            return SPEC_READER.readTree(in);
        }
    }

    /** The structs a spec declares once ({@code commonStructs}) and fields name by type, by name. */
    private static java.util.Map<String, JsonNode> commonStructs(JsonNode spec) {
        java.util.Map<String, JsonNode> structs = new java.util.HashMap<>();
        if (spec.has("commonStructs")) {
            spec.get("commonStructs").forEach(struct -> structs.put(struct.get("name").asText(), struct.get("fields")));
        }
        return structs;
    }

    private static void describeSpec(JsonNode fields, java.util.Map<String, JsonNode> common, short version,
            String path, List<String> out) {
        for (JsonNode field : fields) {
            if (!Versions.parse(field.get("versions").asText()).contains(version)) {
                continue;
            }
            String name = field.get("name").asText();
            String type = field.get("type").asText();
            boolean nullable = field.has("nullableVersions")
                    && Versions.parse(field.get("nullableVersions").asText()).contains(version);
            boolean tagged = field.has("tag")
                    && Versions.parse(field.get("taggedVersions").asText()).contains(version);
            int tag = tagged ? field.get("tag").asInt() : Field.NO_TAG;
            String defaultValue = field.has("default") ? normaliseSpecDefault(type, field.get("default").asText())
                    : implicitDefault(type);
            out.add(describe(path, name, type, nullable, tagged, tag, defaultValue));
            JsonNode nested = field.has("fields") ? field.get("fields")
                    : type.startsWith("[]") ? common.get(type.substring(2)) : null;
            if (nested != null) {
                describeSpec(nested, common, version, path + "/" + name, out);
            }
        }
    }

    private static void describeOurs(Schema schema, short version, String path, List<String> out) {
        for (Field<?> field : schema.fields()) {
            if (!field.isPresentIn(version)) {
                continue;
            }
            String type = field.type().specName();
            out.add(describe(path, field.name(), type, field.isNullableIn(version), field.isTaggedIn(version),
                    field.isTaggedIn(version) ? field.tag() : Field.NO_TAG, normaliseOurDefault(field)));
            if (field.type().isStructArray()) {
                describeOurs(field.type().elementSchema(), version, path + "/" + field.name(), out);
            }
        }
    }

    private static String describe(String path, String name, String type, boolean nullable, boolean tagged, int tag,
                                   String defaultValue) {
        return path + "/" + name + " type=" + type + " nullable=" + nullable + " tagged=" + tagged + " tag=" + tag
                + " default=" + defaultValue;
    }

    private static String normaliseSpecDefault(String type, String text) {
        switch (type) {
            case "int8": case "int16": case "int32": case "int64": case "uint16":
                return Long.toString(text.toLowerCase().startsWith("0x") ? Long.parseLong(text.substring(2), 16)
                        : Long.parseLong(text));
            case "string":
                return text.equals("null") ? "null" : "'" + text + "'";
            default:
                return text;
        }
    }

    /** The default Kafka gives a field whose spec line has none. */
    private static String implicitDefault(String type) {
        if (type.startsWith("[]")) {
            return "[]";
        }
        switch (type) {
            case "int8": case "int16": case "int32": case "int64": case "uint16":
                return "0";
            case "float64":
                return "0.0";
            case "bool":
                return "false";
            case "string":
                return "''";
            case "bytes":
                return "bytes[0]";
            case "records":
                return "null";
            case "uuid":
                return new UUID(0L, 0L).toString();
            default:
                throw new IllegalArgumentException("unexpected type " + type);
        }
    }

    private static String normaliseOurDefault(Field<?> field) {
        Object value = field.defaultValue();
        if (value == null) {
            return "null";
        }
        if (value instanceof String) {
            return "'" + value + "'";
        }
        if (value instanceof byte[]) {
            return "bytes[" + ((byte[]) value).length + "]";
        }
        if (value instanceof List) {
            return value.toString();
        }
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            return Long.toString(((Number) value).longValue());
        }
        return value.toString();
    }
}
