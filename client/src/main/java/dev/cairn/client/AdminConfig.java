package dev.cairn.client;

import dev.cairn.client.internal.ConfigValues;
import java.util.Properties;
import java.util.Set;

/**
 * Admin settings under Kafka's key names (kafka-clients 4.x {@code AdminClientConfig}), built with {@link #builder()}
 * or {@link #fromProperties}. The keys every client shares are in {@link CommonClientConfig}. The admin client
 * retries from retry.backoff.ms doubling to 1 s; it accepts metadata.max.age.ms as Kafka's does but has no use for
 * it, because it fetches metadata for each call that needs it.
 */
public final class AdminConfig extends CommonClientConfig {
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";

    private static final Set<String> KEYS = Set.of(DEFAULT_API_TIMEOUT_MS);

    private final long defaultApiTimeoutMs;

    private AdminConfig(ConfigValues values) {
        super(values, "cairn-admin");
        defaultApiTimeoutMs = values.longValue(DEFAULT_API_TIMEOUT_MS, 60_000, 1, Integer.MAX_VALUE);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Reads Kafka-named settings; unknown keys are rejected. */
    public static AdminConfig fromProperties(Properties properties) {
        return new Builder().setAll(properties).build();
    }

    public long defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }

    /** Typed setters for the admin client's keys, beside the common ones; {@link #set} takes any Kafka-named key. */
    public static final class Builder extends CommonClientConfig.Builder<Builder> {
        private Builder() {
            super("admin", KEYS);
        }

        @Override
        Builder self() {
            return this;
        }

        public Builder defaultApiTimeoutMs(long ms) {
            return set(DEFAULT_API_TIMEOUT_MS, ms);
        }

        public AdminConfig build() {
            return new AdminConfig(values());
        }
    }
}
