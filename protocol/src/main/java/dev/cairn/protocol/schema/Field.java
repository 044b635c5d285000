package dev.cairn.protocol.schema;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One field of a {@link Schema}, declared once as in Kafka's JSON spec and used as a typed handle:
 * {@code struct.get(ProduceRequest.ACKS)}. A field is present in {@link #versions()}; in the versions listed in
 * {@link #taggedVersions()} it travels in the struct's tagged-field section under {@link #tag()} and is written
 * only when it differs from its default.
 *
 * @param <T> the Java type of the field's value
 */
public final class Field<T> {
    /** The tag of a field that is never tagged. */
    public static final int NO_TAG = -1;

    private final Schema schema;
    private final int slot;
    private final String name;
    private final Type<T> type;
    private final Versions versions;
    private final Versions nullableVersions;
    private final int tag;
    private final Versions taggedVersions;
    private final T defaultValue;

    private Field(Builder<T> builder, int slot) {
        this.schema = builder.schema;
        this.slot = slot;
        this.name = builder.name;
        this.type = builder.type;
        this.versions = builder.versions;
        this.nullableVersions = builder.nullableVersions;
        this.tag = builder.tag;
        this.taggedVersions = builder.taggedVersions;
        this.defaultValue = builder.hasDefault ? builder.defaultValue : typeDefault(builder.type);
    }

    /** The default Kafka gives a field whose spec line has no {@code default}. */
    @SuppressWarnings("unchecked")
    private static <T> T typeDefault(Type<T> type) {
        Object value = switch (type.kind()) {
            case BOOL -> Boolean.FALSE;
            case INT8 -> (byte) 0;
            case INT16 -> (short) 0;
            case INT32, UINT16 -> 0;
            case INT64 -> 0L;
            case FLOAT64 -> 0.0d;
            case UUID -> new java.util.UUID(0L, 0L);
            case STRING -> "";
            case BYTES -> new byte[0];
            case RECORDS -> null;
            case ARRAY -> List.of();
        };
        return (T) value;
    }

    public Schema schema() {
        return schema;
    }

    /** The position of this field's value in a {@link Struct} of its schema. */
    public int slot() {
        return slot;
    }

    /** The field's name exactly as in Kafka's JSON spec, e.g. {@code PartitionIndex}. */
    public String name() {
        return name;
    }

    public Type<T> type() {
        return type;
    }

    public Versions versions() {
        return versions;
    }

    public Versions nullableVersions() {
        return nullableVersions;
    }

    public int tag() {
        return tag;
    }

    public Versions taggedVersions() {
        return taggedVersions;
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** Whether the field is on the wire at all in this version, tagged or not. */
    public boolean isPresentIn(short version) {
        return versions.contains(version);
    }

    public boolean isTaggedIn(short version) {
        return tag != NO_TAG && taggedVersions.contains(version);
    }

    public boolean isNullableIn(short version) {
        return nullableVersions.contains(version);
    }

    /** Whether {@code value} equals the default, the test Kafka applies before writing a tagged field. */
    public boolean isDefault(Object value) {
        if (value instanceof byte[] && defaultValue instanceof byte[]) {
            return Arrays.equals((byte[]) value, (byte[]) defaultValue);
        }
        return Objects.equals(value, defaultValue);
    }

    @Override
    public String toString() {
        return schema.name() + "." + name;
    }

    /** Declares a field the way a spec line does; {@link #add()} appends it to the schema under construction. */
    public static final class Builder<T> {
        private final Schema schema;
        private final String name;
        private final Type<T> type;
        private Versions versions = Versions.ALL;
        private Versions nullableVersions = Versions.NONE;
        private int tag = NO_TAG;
        private Versions taggedVersions = Versions.NONE;
        private boolean hasDefault;
        private T defaultValue;

        Builder(Schema schema, String name, Type<T> type) {
            this.schema = schema;
            this.name = name;
            this.type = type;
        }

        public Builder<T> versions(String spec) {
            this.versions = Versions.parse(spec);
            return this;
        }

        public Builder<T> nullableVersions(String spec) {
            this.nullableVersions = Versions.parse(spec);
            return this;
        }

        public Builder<T> tag(int fieldTag, String taggedVersionsSpec) {
            this.tag = fieldTag;
            this.taggedVersions = Versions.parse(taggedVersionsSpec);
            return this;
        }

        public Builder<T> defaultValue(T value) {
            this.hasDefault = true;
            this.defaultValue = value;
            return this;
        }

        public Field<T> add() {
            return schema.register(slot -> new Field<>(this, slot));
        }
    }
}
