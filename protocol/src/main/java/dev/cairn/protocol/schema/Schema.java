package dev.cairn.protocol.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The ordered fields of one message or nested struct, mirroring one {@code fields} list of a Kafka JSON spec.
 * A message schema also carries the message's API key and flexible versions; nested structs inherit the
 * flexibility of the message they travel in.
 *
 * <p>Schemas are built once, in static initialisers of the {@code protocol.message} classes, and are immutable
 * after {@link Builder#build()}.
 */
public final class Schema {
    /** The API key of a nested struct schema, which belongs to no API on its own. */
    public static final short NO_API_KEY = -1;

    private final String name;
    private final short apiKey;
    private final Versions flexibleVersions;
    private final Versions declaredVersions;
    private final List<Field<?>> fields = new ArrayList<>();
    private final List<Field<?>> fieldsView = Collections.unmodifiableList(fields);
    private List<Field<?>> fieldsByTag = List.of();
    private Object[] defaults = new Object[0];
    private boolean built;

    private Schema(String name, short apiKey, Versions flexibleVersions, Versions declaredVersions) {
        this.name = name;
        this.apiKey = apiKey;
        this.flexibleVersions = flexibleVersions;
        this.declaredVersions = declaredVersions;
    }

    /**
     * Starts a top-level message schema ({@code ProduceRequest}) with its spec's {@code flexibleVersions}, and
     * the versions whose fields it declares (fields that exist only outside them are left out).
     */
    public static Builder message(String name, int apiKey, String flexibleVersionsSpec, String declaredVersionsSpec) {
        return new Builder(new Schema(name, (short) apiKey, Versions.parse(flexibleVersionsSpec),
                Versions.parse(declaredVersionsSpec)));
    }

    /** Starts a nested struct schema ({@code TopicProduceData}). */
    public static Builder struct(String name) {
        return new Builder(new Schema(name, NO_API_KEY, Versions.NONE, Versions.NONE));
    }

    <T> Field<T> register(IntFunction<Field<T>> factory) {
        if (built) {
            throw new IllegalStateException("schema " + name + " is already built");
        }
        Field<T> field = factory.apply(fields.size());
        fields.add(field);
        return field;
    }

    public String name() {
        return name;
    }

    public short apiKey() {
        return apiKey;
    }

    /** The versions in which this message uses compact encodings and tagged fields (messages only). */
    public Versions flexibleVersions() {
        return flexibleVersions;
    }

    /** The versions this message schema declares every field for; reading or writing others is a bug. */
    public Versions declaredVersions() {
        return declaredVersions;
    }

    public boolean isFlexible(short version) {
        return flexibleVersions.contains(version);
    }

    /** All fields in declaration order, present or not in any particular version. */
    public List<Field<?>> fields() {
        return fieldsView;
    }

    /** The fields that have a tag, in ascending tag order (the order Kafka writes a tagged section in). */
    public List<Field<?>> fieldsByTag() {
        return fieldsByTag;
    }

    /** Finds a field by its spec name, or returns null. */
    public Field<?> field(String fieldName) {
        for (Field<?> field : fields) {
            if (field.name().equals(fieldName)) {
                return field;
            }
        }
        return null;
    }

    Object[] defaults() {
        return defaults;
    }

    @Override
    public String toString() {
        return name;
    }

    /** Collects a schema's fields in spec order. */
    public static final class Builder {
        private final Schema schema;

        private Builder(Schema schema) {
            this.schema = schema;
        }

        public <T> Field.Builder<T> field(String name, Type<T> type) {
            return new Field.Builder<>(schema, name, type);
        }

        public Schema build() {
            List<Field<?>> tagged = new ArrayList<>();
            Object[] defaults = new Object[schema.fields.size()];
            for (Field<?> field : schema.fields) {
                defaults[field.slot()] = field.defaultValue();
                if (field.tag() != Field.NO_TAG) {
                    tagged.add(field);
                }
            }
            tagged.sort(Comparator.comparingInt(Field::tag));
            schema.fieldsByTag = Collections.unmodifiableList(tagged);
            schema.defaults = defaults;
            schema.built = true;
            return schema;
        }
    }
}
