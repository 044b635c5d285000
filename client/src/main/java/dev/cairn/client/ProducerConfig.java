package dev.cairn.client;

import dev.cairn.client.internal.ConfigValues;
import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Producer settings under Kafka's key names and defaults (kafka-clients 4.x {@code ProducerConfig}), built with
 * {@link #builder()} or {@link #fromProperties}. Idempotence is on by default and needs acks=all; asking for
 * idempotence explicitly with acks 0 or 1 is rejected, while leaving it unset with acks 0 or 1 turns it off, as
 * Kafka does. The keys every client shares are in {@link CommonClientConfig}.
 */
public final class ProducerConfig extends CommonClientConfig {
    public static final String ACKS = "acks";
    public static final String ENABLE_IDEMPOTENCE = "enable.idempotence";
    public static final String BATCH_SIZE = "batch.size";
    public static final String LINGER_MS = "linger.ms";
    public static final String BUFFER_MEMORY = "buffer.memory";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String RETRIES = "retries";
    public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
    public static final String DELIVERY_TIMEOUT_MS = "delivery.timeout.ms";
    public static final String MAX_BLOCK_MS = "max.block.ms";
    public static final String MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION = "max.in.flight.requests.per.connection";
    public static final String MAX_REQUEST_SIZE = "max.request.size";

    private static final Set<String> KEYS = Set.of(ACKS, ENABLE_IDEMPOTENCE, BATCH_SIZE, LINGER_MS, BUFFER_MEMORY,
            COMPRESSION_TYPE, RETRIES, RETRY_BACKOFF_MAX_MS, DELIVERY_TIMEOUT_MS, MAX_BLOCK_MS,
            MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, MAX_REQUEST_SIZE);
    /** Idempotence relies on the broker keeping the last 5 batches per producer (kafka-protocol.md A.3). */
    public static final int IDEMPOTENT_IN_FLIGHT_MAX = 5;
    /** A ceiling on in-flight requests per connection even without idempotence. */
    private static final int IN_FLIGHT_REQUESTS_MAX = 100;
    private static final int BYTES_SETTING_MAX = Integer.MAX_VALUE - 8;

    private final short acks;
    private final boolean idempotent;
    private final int batchSizeBytes;
    private final long lingerMs;
    private final long bufferMemoryBytes;
    private final CompressionType compressionType;
    private final int retries;
    private final long retryBackoffMaxMs;
    private final long deliveryTimeoutMs;
    private final long maxBlockMs;
    private final int inFlightRequestsMax;
    private final int requestSizeMaxBytes;

    private ProducerConfig(ConfigValues values) {
        super(values, "cairn-producer");
        acks = parseAcks(values.string(ACKS, "all"));
        boolean wantIdempotence = values.bool(ENABLE_IDEMPOTENCE, true);
        if (acks != -1 && values.isSet(ENABLE_IDEMPOTENCE) && wantIdempotence) {
            throw new CairnConfigException("enable.idempotence=true needs acks=all, but acks=" + acks);
        }
        idempotent = wantIdempotence && acks == -1;
        batchSizeBytes = values.intValue(BATCH_SIZE, 16_384, 1, BYTES_SETTING_MAX);
        lingerMs = values.longValue(LINGER_MS, 5, 0, Integer.MAX_VALUE);
        bufferMemoryBytes = values.longValue(BUFFER_MEMORY, 32L * 1024 * 1024, 1, Long.MAX_VALUE);
        compressionType = parseCompression(values.string(COMPRESSION_TYPE, "none"));
        if (!Compression.isAvailable(compressionType)) {
            // The codec libraries are optional dependencies; failing here beats failing every batch later.
            throw new CairnConfigException("compression.type=" + compressionType.kafkaName() + " needs "
                    + compressionType.libraryCoordinates() + " on the classpath");
        }
        retries = values.intValue(RETRIES, Integer.MAX_VALUE, 0, Integer.MAX_VALUE);
        retryBackoffMaxMs = values.longValue(RETRY_BACKOFF_MAX_MS, 1000, 0, Integer.MAX_VALUE);
        lingerCheck(values);
        deliveryTimeoutMs = values.longValue(DELIVERY_TIMEOUT_MS, 120_000, 1, Integer.MAX_VALUE);
        maxBlockMs = values.longValue(MAX_BLOCK_MS, 60_000, 0, Long.MAX_VALUE);
        inFlightRequestsMax = values.intValue(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, IDEMPOTENT_IN_FLIGHT_MAX, 1,
                IN_FLIGHT_REQUESTS_MAX);
        if (idempotent && inFlightRequestsMax > IDEMPOTENT_IN_FLIGHT_MAX) {
            throw new CairnConfigException("idempotence allows at most " + IDEMPOTENT_IN_FLIGHT_MAX
                    + " in-flight requests per connection, but " + MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + "="
                    + inFlightRequestsMax);
        }
        requestSizeMaxBytes = values.intValue(MAX_REQUEST_SIZE, 1_048_576, 1, BYTES_SETTING_MAX);
        if (bufferMemoryBytes < batchSizeBytes) {
            throw new CairnConfigException("buffer.memory=" + bufferMemoryBytes + " is smaller than batch.size="
                    + batchSizeBytes);
        }
    }

    private void lingerCheck(ConfigValues values) {
        long delivery = values.longValue(DELIVERY_TIMEOUT_MS, 120_000, 1, Integer.MAX_VALUE);
        if (delivery < lingerMs + requestTimeoutMs()) {
            throw new CairnConfigException("delivery.timeout.ms=" + delivery + " must be at least linger.ms="
                    + lingerMs + " plus request.timeout.ms=" + requestTimeoutMs());
        }
    }

    private static short parseAcks(String text) {
        switch (text.toLowerCase(Locale.ROOT)) {
            case "all":
            case "-1":
                return -1;
            case "0":
                return 0;
            case "1":
                return 1;
            default:
                throw new CairnConfigException("acks='" + text + "' must be all, -1, 0 or 1");
        }
    }

    private static CompressionType parseCompression(String text) {
        for (CompressionType type : CompressionType.values()) {
            if (type.kafkaName().equalsIgnoreCase(text)) {
                return type;
            }
        }
        throw new CairnConfigException("compression.type='" + text + "' must be none, gzip, snappy, lz4 or zstd");
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Reads Kafka-named settings; unknown keys are rejected. */
    public static ProducerConfig fromProperties(Properties properties) {
        return new Builder().setAll(properties).build();
    }

    /** -1 for all, 0 or 1. */
    public short acks() {
        return acks;
    }

    public boolean idempotent() {
        return idempotent;
    }

    public int batchSizeBytes() {
        return batchSizeBytes;
    }

    public long lingerMs() {
        return lingerMs;
    }

    public long bufferMemoryBytes() {
        return bufferMemoryBytes;
    }

    public CompressionType compressionType() {
        return compressionType;
    }

    public int retries() {
        return retries;
    }

    public long retryBackoffMaxMs() {
        return retryBackoffMaxMs;
    }

    public long deliveryTimeoutMs() {
        return deliveryTimeoutMs;
    }

    public long maxBlockMs() {
        return maxBlockMs;
    }

    public int inFlightRequestsMax() {
        return inFlightRequestsMax;
    }

    public int requestSizeMaxBytes() {
        return requestSizeMaxBytes;
    }

    /** Typed setters for the producer's keys, beside the common ones; {@link #set} takes any Kafka-named key. */
    public static final class Builder extends CommonClientConfig.Builder<Builder> {
        private Builder() {
            super("producer", KEYS);
        }

        @Override
        Builder self() {
            return this;
        }

        /** "all", "0" or "1". */
        public Builder acks(String acks) {
            return set(ACKS, acks);
        }

        public Builder idempotence(boolean enabled) {
            return set(ENABLE_IDEMPOTENCE, enabled);
        }

        public Builder batchSizeBytes(int bytes) {
            return set(BATCH_SIZE, bytes);
        }

        public Builder lingerMs(long ms) {
            return set(LINGER_MS, ms);
        }

        public Builder bufferMemoryBytes(long bytes) {
            return set(BUFFER_MEMORY, bytes);
        }

        public Builder compression(CompressionType type) {
            return set(COMPRESSION_TYPE, type.kafkaName());
        }

        public Builder retries(int retries) {
            return set(RETRIES, retries);
        }

        public Builder deliveryTimeoutMs(long ms) {
            return set(DELIVERY_TIMEOUT_MS, ms);
        }

        public Builder maxBlockMs(long ms) {
            return set(MAX_BLOCK_MS, ms);
        }

        public ProducerConfig build() {
            return new ProducerConfig(values());
        }
    }
}
