package dev.cairn.broker.config;

import java.util.function.Function;

/**
 * One broker configuration key: its name (Kafka's where the meaning is the same), its default as text, a
 * one-line meaning for the README and sample configs, the kind of value it holds (what DescribeConfigs reports as
 * its type), and a parser that turns text into a value or throws {@link ConfigException} naming the key and the
 * bad value.
 */
public record ConfigKey<T>(String name, String defaultText, String doc, Kind kind, Function<String, T> parser) {

    /** The kind of value a key holds. */
    public enum Kind {
        BOOLEAN, STRING, INT, LONG, PASSWORD
    }

    public T parse(String text) {
        try {
            return parser.apply(text.trim());
        } catch (ConfigException e) {
            throw new ConfigException(name + ": " + e.getMessage());
        } catch (RuntimeException e) {
            throw new ConfigException(name + "=" + text + " is not valid: " + e.getMessage());
        }
    }

    static ConfigKey<Integer> intKey(String name, int defaultValue, int min, int max, String doc) {
        return new ConfigKey<>(name, Integer.toString(defaultValue), doc, Kind.INT, text -> {
            int value = Integer.parseInt(text);
            if (value < min || value > max) {
                throw new ConfigException(text + " is outside [" + min + ", " + max + "]");
            }
            return value;
        });
    }

    static ConfigKey<Long> longKey(String name, long defaultValue, long min, long max, String doc) {
        return new ConfigKey<>(name, Long.toString(defaultValue), doc, Kind.LONG, text -> {
            long value = Long.parseLong(text);
            if (value < min || value > max) {
                throw new ConfigException(text + " is outside [" + min + ", " + max + "]");
            }
            return value;
        });
    }

    static ConfigKey<Boolean> boolKey(String name, boolean defaultValue, String doc) {
        return new ConfigKey<>(name, Boolean.toString(defaultValue), doc, Kind.BOOLEAN, text -> {
            if (!text.equals("true") && !text.equals("false")) {
                throw new ConfigException(text + " is neither true nor false");
            }
            return Boolean.parseBoolean(text);
        });
    }

    static ConfigKey<String> stringKey(String name, String defaultValue, String doc) {
        return new ConfigKey<>(name, defaultValue, doc, Kind.STRING, text -> text);
    }

    /** A secret: DescribeConfigs reports it as sensitive with no value, and no log line prints it. */
    static ConfigKey<String> passwordKey(String name, String doc) {
        return new ConfigKey<>(name, "", doc, Kind.PASSWORD, text -> text);
    }

    /** Whether the value is a secret that must never be shown. */
    public boolean sensitive() {
        return kind == Kind.PASSWORD;
    }
}
