package dev.cairn.client;

import dev.cairn.client.internal.ConfigValues;
import dev.cairn.client.internal.ConfigValues.HostPort;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * The settings every Cairn client takes, under the names and defaults of Kafka's {@code CommonClientConfigs}:
 * bootstrap.servers, client.id, request.timeout.ms, retry.backoff.ms and metadata.max.age.ms.
 * {@link ProducerConfig}, {@link ConsumerConfig} and {@link AdminConfig} extend it with their own keys; its constants
 * are reachable through them ({@code ProducerConfig.BOOTSTRAP_SERVERS}). Only those three extend it.
 */
public abstract class CommonClientConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";

    private static final Set<String> KEYS = Set.of(BOOTSTRAP_SERVERS, CLIENT_ID, REQUEST_TIMEOUT_MS, RETRY_BACKOFF_MS,
            METADATA_MAX_AGE_MS);

    private final List<HostPort> bootstrapServers;
    private final String clientId;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;
    private final long metadataMaxAgeMs;

    /** Reads the common keys; client.id defaults per client kind ("cairn-producer", …). */
    CommonClientConfig(ConfigValues values, String defaultClientId) {
        bootstrapServers = values.hostPorts(BOOTSTRAP_SERVERS);
        clientId = values.string(CLIENT_ID, defaultClientId);
        requestTimeoutMs = values.intValue(REQUEST_TIMEOUT_MS, 30_000, 1, Integer.MAX_VALUE);
        retryBackoffMs = values.longValue(RETRY_BACKOFF_MS, 100, 0, Integer.MAX_VALUE);
        metadataMaxAgeMs = values.longValue(METADATA_MAX_AGE_MS, 300_000, 0, Long.MAX_VALUE);
    }

    public final List<HostPort> bootstrapServers() {
        return bootstrapServers;
    }

    public final String clientId() {
        return clientId;
    }

    public final int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public final long retryBackoffMs() {
        return retryBackoffMs;
    }

    /** How old cached metadata may get before it is refreshed even without an error. */
    public final long metadataMaxAgeMs() {
        return metadataMaxAgeMs;
    }

    /**
     * Typed setters for the common keys and {@link #set} for any Kafka-named key the client knows. Each setter returns
     * the concrete builder ({@code B}), so common and client-specific setters chain in any order.
     *
     * @param <B> the concrete builder
     */
    public abstract static class Builder<B extends Builder<B>> {
        private final ConfigValues values;

        /** {@code clientKind} names the client in error messages; {@code clientKeys} are the keys beyond the common. */
        Builder(String clientKind, Set<String> clientKeys) {
            Set<String> known = new HashSet<>(KEYS);
            known.addAll(clientKeys);
            values = new ConfigValues(clientKind, Set.copyOf(known));
        }

        /** This builder as its concrete type, so that the common setters can return it. */
        abstract B self();

        /** The values set so far, for the concrete builder's {@code build()}. */
        final ConfigValues values() {
            return values;
        }

        /** Sets every entry of {@code properties}, as {@code fromProperties} does. */
        final B setAll(Properties properties) {
            values.putAll(properties);
            return self();
        }

        /** Sets any Kafka-named key; an unknown key fails at once. */
        public final B set(String key, Object value) {
            values.put(key, value);
            return self();
        }

        public final B bootstrapServers(String hostPorts) {
            return set(BOOTSTRAP_SERVERS, hostPorts);
        }

        public final B clientId(String clientId) {
            return set(CLIENT_ID, clientId);
        }

        public final B requestTimeoutMs(int ms) {
            return set(REQUEST_TIMEOUT_MS, ms);
        }

        public final B retryBackoffMs(long ms) {
            return set(RETRY_BACKOFF_MS, ms);
        }

        public final B metadataMaxAgeMs(long ms) {
            return set(METADATA_MAX_AGE_MS, ms);
        }
    }
}
