package dev.cairn.protocol.schema;

import java.util.Arrays;

/**
 * The values of one message or nested struct, held in an array indexed by {@link Field#slot()}. A new struct
 * holds every field's default, so fields absent from a version need no special handling by callers.
 *
 * <p>Default values that are arrays or lists are shared and immutable; set a new value instead of mutating one.
 */
public final class Struct {
    private final Schema schema;
    private final Object[] values;

    public Struct(Schema schema) {
        this.schema = schema;
        this.values = schema.defaults().clone();
    }

    public Schema schema() {
        return schema;
    }

    @SuppressWarnings("unchecked")
    public <T> T get(Field<T> field) {
        checkOwner(field);
        return (T) values[field.slot()];
    }

    public <T> Struct set(Field<T> field, T value) {
        checkOwner(field);
        values[field.slot()] = value;
        return this;
    }

    Object getBySlot(int slot) {
        return values[slot];
    }

    void setBySlot(int slot, Object value) {
        values[slot] = value;
    }

    private void checkOwner(Field<?> field) {
        if (field.schema() != schema) {
            throw new IllegalArgumentException("field " + field + " does not belong to schema " + schema.name());
        }
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Struct)) {
            return false;
        }
        Struct that = (Struct) other;
        return schema == that.schema && Arrays.deepEquals(values, that.values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(schema.name()).append('(');
        for (Field<?> field : schema.fields()) {
            Object value = values[field.slot()];
            text.append(field.slot() == 0 ? "" : ", ").append(field.name()).append('=');
            text.append(value instanceof byte[] ? Arrays.toString((byte[]) value) : String.valueOf(value));
        }
        return text.append(')').toString();
    }
}
