package dev.cairn.client;

import java.util.Arrays;
import java.util.Objects;

/** A record header: a non-null key and a value that may be null. The array is not copied. */
public record Header(String key, byte[] value) {
    public Header {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Header that && key.equals(that.key) && Arrays.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header[key=" + key + ", value=" + (value == null ? "null" : value.length + " bytes") + "]";
    }
}
