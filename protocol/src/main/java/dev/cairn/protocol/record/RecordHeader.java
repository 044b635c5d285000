package dev.cairn.protocol.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record header as a producer supplies it: a non-null key (written as UTF-8) and a value that may be null.
 * The array is not copied; callers must not change it after handing it over.
 */
public record RecordHeader(String key, byte[] value) {
    public RecordHeader {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RecordHeader that && key.equals(that.key) && Arrays.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "RecordHeader[key=" + key + ", value=" + (value == null ? "null" : value.length + " bytes") + "]";
    }
}
