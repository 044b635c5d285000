package dev.cairn.client.internal;

import dev.cairn.client.CairnConfigException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * String settings under Kafka's key names, parsed into typed values with range checks. Both the typed builders and
 * {@code fromProperties} go through here, so a value means the same whichever way it was given.
 */
public final class ConfigValues {
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> knownKeys;
    private final String clientKind;

    public ConfigValues(String clientKind, Set<String> knownKeys) {
        this.clientKind = clientKind;
        this.knownKeys = knownKeys;
    }

    /** Sets a value; an unknown key is rejected at once so that a misspelt setting never goes unnoticed. */
    public void put(String key, Object value) {
        if (!knownKeys.contains(key)) {
            throw new CairnConfigException("unknown " + clientKind + " setting '" + key + "'; known: "
                    + new TreeSet<>(knownKeys));
        }
        values.put(key, String.valueOf(value).trim());
    }

    public void putAll(Properties properties) {
        for (String key : properties.stringPropertyNames()) {
            put(key, properties.getProperty(key));
        }
    }

    public String string(String key, String defaultValue) {
        return values.getOrDefault(key, defaultValue);
    }

    public boolean isSet(String key) {
        return values.containsKey(key);
    }

    public String required(String key) {
        String value = values.get(key);
        if (value == null || value.isEmpty()) {
            throw new CairnConfigException(clientKind + " setting '" + key + "' is required");
        }
        return value;
    }

    public long longValue(String key, long defaultValue, long min, long max) {
        String text = values.get(key);
        if (text == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(text);
        } catch (NumberFormatException malformed) {
            throw new CairnConfigException(clientKind + " setting '" + key + "' = '" + text + "' is not a number");
        }
        if (parsed < min || parsed > max) {
            throw new CairnConfigException(clientKind + " setting '" + key + "' = " + parsed + " outside [" + min
                    + ", " + max + "]");
        }
        return parsed;
    }

    public int intValue(String key, int defaultValue, int min, int max) {
        return (int) longValue(key, defaultValue, min, max);
    }

    public boolean bool(String key, boolean defaultValue) {
        String text = values.get(key);
        if (text == null) {
            return defaultValue;
        }
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw new CairnConfigException(clientKind + " setting '" + key + "' = '" + text + "' is not a boolean");
        }
        return Boolean.parseBoolean(text);
    }

    /** Parses "host:port,host:port" (Kafka's bootstrap.servers). */
    public List<HostPort> hostPorts(String key) {
        List<HostPort> parsed = new ArrayList<>();
        for (String entry : required(key).split(",")) {
            String trimmed = entry.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0 || colon == trimmed.length() - 1) {
                throw new CairnConfigException(clientKind + " setting '" + key + "' entry '" + trimmed
                        + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(trimmed.substring(colon + 1));
            } catch (NumberFormatException malformed) {
                throw new CairnConfigException(clientKind + " setting '" + key + "' entry '" + trimmed
                        + "' has a malformed port");
            }
            parsed.add(new HostPort(trimmed.substring(0, colon), port));
        }
        return List.copyOf(parsed);
    }

    /** A broker address. */
    public record HostPort(String host, int port) {
    }
}
