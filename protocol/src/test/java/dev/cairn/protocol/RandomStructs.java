package dev.cairn.protocol;

import dev.cairn.protocol.schema.Field;
import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.schema.Type;
import dev.cairn.protocol.wire.ByteBufferRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Seeded random message bodies for any schema and version: nulls where the version allows them, empty and large
 * arrays, unicode strings (multi-byte and surrogate pairs), extreme integers, and tagged fields set to
 * non-default values about half the time. Fields absent from the version keep their defaults, as a decoder
 * leaves them.
 */
final class RandomStructs {
    /** Nested arrays stop growing past this depth so a case stays small. */
    private static final int LARGE_ARRAY_DEPTH_MAX = 1;
    private static final int LARGE_STRUCT_ARRAY_ELEMENTS_MAX = 40;
    private static final int LARGE_PRIMITIVE_ARRAY_ELEMENTS_MAX = 300;
    private static final int LARGE_STRING_CHARS_MAX = 400;
    private static final int LARGE_BYTES_MAX = 2048;
    private static final String[] UNICODE_SAMPLES = {"a", "Z", "0", " ", "é", "ß", "Ω", "中", "文", "🙂", "𝄞",
        "\u0000", "\u007f", "\u0080", "\u07ff", "\u0800", "\uffff"};

    private final Random random;
    private final boolean small;

    RandomStructs(long seed, boolean small) {
        this.random = new Random(seed);
        this.small = small;
    }

    Random random() {
        return random;
    }

    /**
     * ACL enum fields (DescribeAcls, DeleteAcls): kafka-clients refuses to build such a response holding an unknown
     * code ("Contain UNKNOWN elements"), so these take codes Kafka knows.
     */
    private static final java.util.Map<String, byte[]> ACL_CODES = java.util.Map.of(
            "ResourceType", new byte[] {2, 3, 4, 5, 6, 7},
            "PatternType", new byte[] {3, 4},
            "Operation", new byte[] {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
            "PermissionType", new byte[] {2, 3});

    Struct message(Schema schema, short version) {
        return struct(schema, version, schema.isFlexible(version), 0);
    }

    private Struct struct(Schema schema, short version, boolean flexible, int depth) {
        Struct struct = new Struct(schema);
        for (Field<?> field : schema.fields()) {
            if (!field.isPresentIn(version)) {
                continue;
            }
            if (flexible && field.isTaggedIn(version) && random.nextBoolean()) {
                continue;
            }
            setRandom(struct, field, version, flexible, depth);
        }
        return struct;
    }

    @SuppressWarnings("unchecked")
    private <T> void setRandom(Struct struct, Field<T> field, short version, boolean flexible, int depth) {
        if (field.isNullableIn(version) && random.nextInt(6) == 0) {
            struct.set(field, null);
            return;
        }
        Type<T> type = field.type();
        byte[] validCodes = ACL_CODES.get(field.name());
        if (validCodes != null && type.kind() == Type.Kind.INT8) {
            struct.set(field, (T) Byte.valueOf(validCodes[random.nextInt(validCodes.length)]));
            return;
        }
        if (type.kind() == Type.Kind.ARRAY) {
            struct.set(field, (T) array(type, version, flexible, depth));
        } else {
            struct.set(field, (T) primitive(type.kind()));
        }
    }

    private List<Object> array(Type<?> type, short version, boolean flexible, int depth) {
        int count;
        int shape = random.nextInt(10);
        boolean large = !small && shape == 0 && depth <= LARGE_ARRAY_DEPTH_MAX;
        if (shape < 3) {
            count = 0;
        } else if (large) {
            count = random.nextInt(type.isStructArray() ? LARGE_STRUCT_ARRAY_ELEMENTS_MAX
                    : LARGE_PRIMITIVE_ARRAY_ELEMENTS_MAX) + 1;
        } else {
            count = random.nextInt(3) + 1;
        }
        List<Object> elements = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            elements.add(type.isStructArray() ? struct(type.elementSchema(), version, flexible, depth + 1)
                    : primitive(type.elementType().kind()));
        }
        return elements;
    }

    Object primitive(Type.Kind kind) {
        switch (kind) {
            case BOOL:
                return random.nextBoolean();
            case INT8:
                return (byte) extremeOr(random.nextInt(), Byte.MIN_VALUE, Byte.MAX_VALUE);
            case INT16:
                return (short) extremeOr(random.nextInt(), Short.MIN_VALUE, Short.MAX_VALUE);
            case INT32:
                return (int) extremeOr(random.nextInt(), Integer.MIN_VALUE, Integer.MAX_VALUE);
            case INT64:
                return extremeOr(random.nextLong(), Long.MIN_VALUE, Long.MAX_VALUE);
            case UINT16:
                return (int) extremeOr(random.nextInt(0x10000), 0, 0xffff);
            case FLOAT64:
                return random.nextInt(4) == 0 ? (double) random.nextInt(3) - 1 : random.nextDouble() * 1e9;
            case UUID:
                return random.nextInt(5) == 0 ? new UUID(0L, 0L) : new UUID(random.nextLong(), random.nextLong());
            case STRING:
                return string();
            case BYTES:
                return bytes();
            case RECORDS:
                return ByteBufferRecords.of(ByteBuffer.wrap(bytes()));
            default:
                throw new IllegalArgumentException("not a primitive: " + kind);
        }
    }

    private long extremeOr(long randomValue, long min, long max) {
        switch (random.nextInt(8)) {
            case 0:
                return min;
            case 1:
                return max;
            case 2:
                return 0;
            case 3:
                return min < 0 ? -1 : 1;
            case 4:
                return random.nextInt(128);
            default:
                return Math.max(min, Math.min(max, randomValue));
        }
    }

    private String string() {
        int shape = random.nextInt(10);
        int chars = shape < 2 ? 0 : !small && shape == 9 ? random.nextInt(LARGE_STRING_CHARS_MAX) : random.nextInt(12);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < chars; i++) {
            text.append(random.nextInt(3) == 0 ? UNICODE_SAMPLES[random.nextInt(UNICODE_SAMPLES.length)]
                    : String.valueOf((char) ('a' + random.nextInt(26))));
        }
        return text.toString();
    }

    private byte[] bytes() {
        int shape = random.nextInt(10);
        int length = shape < 2 ? 0 : !small && shape == 9 ? random.nextInt(LARGE_BYTES_MAX) : random.nextInt(40);
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
