package dev.cairn.client;

import dev.cairn.client.internal.ConfigValues;
import dev.cairn.client.internal.ConfigValues.HostPort;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/** Admin settings under Kafka's key names, built with {@link #builder()} or {@link #fromProperties}. */
public final class AdminConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";

    private static final Set<String> KEYS = Set.of(BOOTSTRAP_SERVERS, CLIENT_ID, REQUEST_TIMEOUT_MS,
            DEFAULT_API_TIMEOUT_MS);

    private final List<HostPort> bootstrapServers;
    private final String clientId;
    private final int requestTimeoutMs;
    private final long defaultApiTimeoutMs;

    private AdminConfig(ConfigValues values) {
        bootstrapServers = values.hostPorts(BOOTSTRAP_SERVERS);
        clientId = values.string(CLIENT_ID, "cairn-admin");
        requestTimeoutMs = values.intValue(REQUEST_TIMEOUT_MS, 30_000, 1, Integer.MAX_VALUE);
        defaultApiTimeoutMs = values.longValue(DEFAULT_API_TIMEOUT_MS, 60_000, 1, Integer.MAX_VALUE);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static AdminConfig fromProperties(Properties properties) {
        Builder builder = new Builder();
        builder.values.putAll(properties);
        return builder.build();
    }

    public List<HostPort> bootstrapServers() {
        return bootstrapServers;
    }

    public String clientId() {
        return clientId;
    }

    public int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public long defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }

    /** Typed setters for the same keys. */
    public static final class Builder {
        private final ConfigValues values = new ConfigValues("admin", KEYS);

        private Builder() {
        }

        public Builder set(String key, Object value) {
            values.put(key, value);
            return this;
        }

        public Builder bootstrapServers(String hostPorts) {
            return set(BOOTSTRAP_SERVERS, hostPorts);
        }

        public Builder clientId(String clientId) {
            return set(CLIENT_ID, clientId);
        }

        public AdminConfig build() {
            return new AdminConfig(values);
        }
    }
}
