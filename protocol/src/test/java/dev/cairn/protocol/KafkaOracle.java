package dev.cairn.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cairn.protocol.schema.Field;
import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.SchemaCodec;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.schema.Type;
import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.ByteBufferWritable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * kafka-clients 4.4 as a test oracle: its generated message classes parse and re-serialise our bytes, and its
 * generated {@code *DataJsonConverter}s render messages as JSON, which {@link #render} mirrors for our structs
 * (camelCase field names; only fields present in the version; tagged fields only when not default).
 */
final class KafkaOracle {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final String MESSAGE_PACKAGE = "org.apache.kafka.common.message.";

    private KafkaOracle() {
    }

    static ApiMessage newMessage(ApiKey apiKey, boolean request) {
        ApiMessageType type = ApiMessageType.fromApiKey(apiKey.id());
        return request ? type.newRequest() : type.newResponse();
    }

    static ApiMessage read(ApiKey apiKey, boolean request, ByteBuffer body, short version) {
        ApiMessage message = newMessage(apiKey, request);
        message.read(new ByteBufferAccessor(body.duplicate()), version);
        return message;
    }

    static byte[] write(ApiMessage message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = message.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.array();
    }

    /**
     * Kafka's JSON for a message, with records fields rendered as their size ({@code recordsSizeInBytes}):
     * kafka-clients 4.4 renders the bytes of a parsed records field as empty, so records bytes are compared on
     * the wire instead.
     */
    static JsonNode toJson(ApiMessage message, short version) {
        try {
            Method write = converter(message.getClass()).getMethod("write", message.getClass(), short.class,
                    boolean.class);
            return (JsonNode) write.invoke(null, message, version, false);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static ApiMessage fromJson(ApiKey apiKey, boolean request, JsonNode json, short version) {
        Class<?> dataClass = newMessage(apiKey, request).getClass();
        try {
            Method read = converter(dataClass).getMethod("read", JsonNode.class, short.class);
            return (ApiMessage) read.invoke(null, json, version);
        } catch (InvocationTargetException e) {
            throw new AssertionError("kafka could not read " + json, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Class<?> converter(Class<?> dataClass) throws ClassNotFoundException {
        return Class.forName(MESSAGE_PACKAGE + dataClass.getSimpleName() + "JsonConverter");
    }

    static byte[] encode(Struct body, short version) {
        ByteBuffer buffer = ByteBuffer.allocate(SchemaCodec.size(body, version));
        SchemaCodec.write(body, version, new ByteBufferWritable(buffer));
        return buffer.array();
    }

    static String camelCase(String specName) {
        return Character.toLowerCase(specName.charAt(0)) + specName.substring(1);
    }

    /**
     * Renders our struct as Kafka's JSON converter renders the same message; records either as bytes (which
     * Kafka's converter reads back) or as {@code recordsSizeInBytes} (which {@link #toJson} produces).
     */
    static ObjectNode render(Struct struct, short version, boolean flexible, boolean serializeRecords) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        Schema schema = struct.schema();
        for (Field<?> field : schema.fields()) {
            if (!field.isPresentIn(version)) {
                continue;
            }
            Object value = struct.get(field);
            if (flexible && field.isTaggedIn(version) && field.isDefault(value)) {
                continue;
            }
            if (field.type().kind() == Type.Kind.RECORDS && !serializeRecords && value != null) {
                node.put(camelCase(field.name()) + "SizeInBytes", ((ByteBufferRecords) value).sizeInBytes());
                continue;
            }
            node.set(camelCase(field.name()), renderValue(field.type(), value, version, flexible, serializeRecords));
        }
        return node;
    }

    private static JsonNode renderValue(Type<?> type, Object value, short version, boolean flexible,
                                        boolean serializeRecords) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (value == null) {
            return nodes.nullNode();
        }
        switch (type.kind()) {
            case ARRAY:
                ArrayNode array = nodes.arrayNode();
                for (Object element : (List<?>) value) {
                    array.add(type.isStructArray() ? render((Struct) element, version, flexible, serializeRecords)
                            : renderValue(type.elementType(), element, version, flexible, serializeRecords));
                }
                return array;
            case BOOL:
                return nodes.booleanNode((Boolean) value);
            case INT8:
                return nodes.numberNode((short) (byte) (Byte) value);
            case INT16:
                return nodes.numberNode((Short) value);
            case INT32:
            case UINT16:
                return nodes.numberNode((Integer) value);
            case INT64:
                return nodes.numberNode((Long) value);
            case FLOAT64:
                return nodes.numberNode((Double) value);
            case UUID:
                return nodes.textNode(kafkaUuidText((UUID) value));
            case STRING:
                return nodes.textNode((String) value);
            case BYTES:
                return BinaryNode.valueOf((byte[]) value);
            case RECORDS:
                ByteBuffer records = ByteBufferRecords.bufferOf((ByteBufferRecords) value);
                byte[] bytes = new byte[records.remaining()];
                records.get(bytes);
                return BinaryNode.valueOf(bytes);
            default:
                throw new IllegalArgumentException("unknown kind " + type.kind());
        }
    }

    /** Kafka prints a UUID as the URL-safe base64 of its 16 bytes without padding. */
    static String kafkaUuidText(UUID uuid) {
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    static String text(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }
}
