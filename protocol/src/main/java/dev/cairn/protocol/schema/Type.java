package dev.cairn.protocol.schema;

import dev.cairn.protocol.wire.RecordsPayload;
import java.util.List;
import java.util.UUID;

/**
 * A field type from Kafka's JSON specs, typed by the Java value a {@link Struct} holds for it: {@code int32} is
 * an {@link Integer}, {@code bytes} a {@code byte[]}, {@code records} a {@link RecordsPayload}, {@code []T} a
 * {@link List}. Arrays hold either a primitive element type or a nested {@link Schema}.
 *
 * @param <T> the Java type of a value of this type
 */
public final class Type<T> {
    /** The wire kinds; each has one fixed or length-prefixed encoding per (non-)flexible version. */
    public enum Kind {
        BOOL("bool", 1),
        INT8("int8", 1),
        INT16("int16", 2),
        INT32("int32", 4),
        INT64("int64", 8),
        UINT16("uint16", 2),
        FLOAT64("float64", 8),
        UUID("uuid", 16),
        STRING("string", -1),
        BYTES("bytes", -1),
        RECORDS("records", -1),
        ARRAY("[]", -1);

        private final String specName;
        private final int fixedBytes;

        Kind(String specName, int fixedBytes) {
            this.specName = specName;
            this.fixedBytes = fixedBytes;
        }

        /** Returns the encoded size of a fixed-width kind, or -1 for a length-prefixed one. */
        public int fixedBytes() {
            return fixedBytes;
        }
    }

    public static final Type<Boolean> BOOL = new Type<>(Kind.BOOL, null, null);
    public static final Type<Byte> INT8 = new Type<>(Kind.INT8, null, null);
    public static final Type<Short> INT16 = new Type<>(Kind.INT16, null, null);
    public static final Type<Integer> INT32 = new Type<>(Kind.INT32, null, null);
    public static final Type<Long> INT64 = new Type<>(Kind.INT64, null, null);
    public static final Type<Integer> UINT16 = new Type<>(Kind.UINT16, null, null);
    public static final Type<Double> FLOAT64 = new Type<>(Kind.FLOAT64, null, null);
    public static final Type<UUID> UUID = new Type<>(Kind.UUID, null, null);
    public static final Type<String> STRING = new Type<>(Kind.STRING, null, null);
    public static final Type<byte[]> BYTES = new Type<>(Kind.BYTES, null, null);
    public static final Type<RecordsPayload> RECORDS = new Type<>(Kind.RECORDS, null, null);

    private final Kind kind;
    private final Type<?> elementType;
    private final Schema elementSchema;

    private Type(Kind kind, Type<?> elementType, Schema elementSchema) {
        this.kind = kind;
        this.elementType = elementType;
        this.elementSchema = elementSchema;
    }

    /** An array of a primitive type, e.g. {@code []int32}. */
    public static <E> Type<List<E>> arrayOf(Type<E> elementType) {
        if (elementType.kind == Kind.ARRAY || elementType.kind == Kind.RECORDS) {
            throw new IllegalArgumentException("array elements must be primitives or structs");
        }
        return new Type<>(Kind.ARRAY, elementType, null);
    }

    /** An array of structs, e.g. {@code []TopicData}. */
    public static Type<List<Struct>> arrayOf(Schema elementSchema) {
        return new Type<>(Kind.ARRAY, null, elementSchema);
    }

    public Kind kind() {
        return kind;
    }

    /** The element type of a primitive array, or null. */
    public Type<?> elementType() {
        return elementType;
    }

    /** The element schema of a struct array, or null. */
    public Schema elementSchema() {
        return elementSchema;
    }

    public boolean isStructArray() {
        return elementSchema != null;
    }

    /** The type's name as Kafka's JSON specs write it ({@code int32}, {@code []string}, {@code []TopicData}). */
    public String specName() {
        if (kind != Kind.ARRAY) {
            return kind.specName;
        }
        return "[]" + (elementSchema != null ? elementSchema.name() : elementType.specName());
    }

    @Override
    public String toString() {
        return specName();
    }
}
