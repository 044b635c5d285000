package dev.cairn.client;

import dev.cairn.client.internal.ConfigValues;
import dev.cairn.client.internal.ConfigValues.HostPort;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Consumer settings under Kafka's key names and defaults (kafka-clients 4.x {@code ConsumerConfig}), built with
 * {@link #builder()} or {@link #fromProperties}. group.id is needed for subscribe() and for committing and reading
 * committed offsets.
 */
public final class ConsumerConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String GROUP_ID = "group.id";
    public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
    public static final String FETCH_MIN_BYTES = "fetch.min.bytes";
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String FETCH_MAX_WAIT_MS = "fetch.max.wait.ms";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String MAX_POLL_RECORDS = "max.poll.records";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";
    public static final String CHECK_CRCS = "check.crcs";
    public static final String ENABLE_AUTO_COMMIT = "enable.auto.commit";
    public static final String AUTO_COMMIT_INTERVAL_MS = "auto.commit.interval.ms";
    public static final String SESSION_TIMEOUT_MS = "session.timeout.ms";
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    public static final String MAX_POLL_INTERVAL_MS = "max.poll.interval.ms";
    public static final String PARTITION_ASSIGNMENT_STRATEGY = "partition.assignment.strategy";
    public static final String GROUP_INSTANCE_ID = "group.instance.id";
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";
    /** Kafka 4's default partition.assignment.strategy: range first, cooperative-sticky as the upgrade path. */
    public static final List<String> DEFAULT_ASSIGNORS = List.of("range", "cooperative-sticky");

    private static final Set<String> KEYS = Set.of(BOOTSTRAP_SERVERS, CLIENT_ID, GROUP_ID, AUTO_OFFSET_RESET,
            FETCH_MIN_BYTES, FETCH_MAX_BYTES, FETCH_MAX_WAIT_MS, MAX_PARTITION_FETCH_BYTES, MAX_POLL_RECORDS,
            REQUEST_TIMEOUT_MS, RETRY_BACKOFF_MS, DEFAULT_API_TIMEOUT_MS, CHECK_CRCS, ENABLE_AUTO_COMMIT,
            AUTO_COMMIT_INTERVAL_MS, SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, MAX_POLL_INTERVAL_MS,
            PARTITION_ASSIGNMENT_STRATEGY, GROUP_INSTANCE_ID, METADATA_MAX_AGE_MS);
    private static final int BYTES_SETTING_MAX = Integer.MAX_VALUE - 8;

    /** What to do when a partition has no valid position (Kafka's auto.offset.reset). */
    public enum OffsetReset {
        EARLIEST, LATEST, NONE
    }

    private final List<HostPort> bootstrapServers;
    private final String clientId;
    private final String groupId;
    private final OffsetReset offsetReset;
    private final int fetchMinBytes;
    private final int fetchMaxBytes;
    private final int fetchMaxWaitMs;
    private final int partitionFetchBytesMax;
    private final int pollRecordsMax;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;
    private final long defaultApiTimeoutMs;
    private final boolean checkCrcs;
    private final boolean autoCommit;
    private final long autoCommitIntervalMs;
    private final int sessionTimeoutMs;
    private final int heartbeatIntervalMs;
    private final int maxPollIntervalMs;
    private final List<String> assignors;
    private final String groupInstanceId;
    private final long metadataMaxAgeMs;

    private ConsumerConfig(ConfigValues values) {
        bootstrapServers = values.hostPorts(BOOTSTRAP_SERVERS);
        clientId = values.string(CLIENT_ID, "cairn-consumer");
        groupId = values.string(GROUP_ID, null);
        String reset = values.string(AUTO_OFFSET_RESET, "latest").toUpperCase(Locale.ROOT);
        try {
            offsetReset = OffsetReset.valueOf(reset);
        } catch (IllegalArgumentException unknown) {
            throw new CairnConfigException("auto.offset.reset='" + reset + "' must be earliest, latest or none");
        }
        fetchMinBytes = values.intValue(FETCH_MIN_BYTES, 1, 0, BYTES_SETTING_MAX);
        fetchMaxBytes = values.intValue(FETCH_MAX_BYTES, 52_428_800, 0, BYTES_SETTING_MAX);
        fetchMaxWaitMs = values.intValue(FETCH_MAX_WAIT_MS, 500, 0, Integer.MAX_VALUE);
        partitionFetchBytesMax = values.intValue(MAX_PARTITION_FETCH_BYTES, 1_048_576, 0, BYTES_SETTING_MAX);
        pollRecordsMax = values.intValue(MAX_POLL_RECORDS, 500, 1, Integer.MAX_VALUE);
        requestTimeoutMs = values.intValue(REQUEST_TIMEOUT_MS, 30_000, 1, Integer.MAX_VALUE);
        retryBackoffMs = values.longValue(RETRY_BACKOFF_MS, 100, 0, Integer.MAX_VALUE);
        defaultApiTimeoutMs = values.longValue(DEFAULT_API_TIMEOUT_MS, 60_000, 0, Integer.MAX_VALUE);
        checkCrcs = values.bool(CHECK_CRCS, true);
        autoCommit = values.bool(ENABLE_AUTO_COMMIT, true);
        autoCommitIntervalMs = values.longValue(AUTO_COMMIT_INTERVAL_MS, 5_000, 0, Integer.MAX_VALUE);
        sessionTimeoutMs = values.intValue(SESSION_TIMEOUT_MS, 45_000, 1, Integer.MAX_VALUE);
        heartbeatIntervalMs = values.intValue(HEARTBEAT_INTERVAL_MS, 3_000, 1, Integer.MAX_VALUE);
        maxPollIntervalMs = values.intValue(MAX_POLL_INTERVAL_MS, 300_000, 1, Integer.MAX_VALUE);
        assignors = parseAssignors(values.string(PARTITION_ASSIGNMENT_STRATEGY, String.join(",", DEFAULT_ASSIGNORS)));
        groupInstanceId = values.string(GROUP_INSTANCE_ID, null);
        metadataMaxAgeMs = values.longValue(METADATA_MAX_AGE_MS, 300_000, 0, Integer.MAX_VALUE);
        if (heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new CairnConfigException("heartbeat.interval.ms=" + heartbeatIntervalMs
                    + " must be below session.timeout.ms=" + sessionTimeoutMs);
        }
        if (requestTimeoutMs <= fetchMaxWaitMs) {
            throw new CairnConfigException("request.timeout.ms=" + requestTimeoutMs + " must exceed fetch.max.wait.ms="
                    + fetchMaxWaitMs + ", or every long-polling fetch would time out");
        }
    }

    /**
     * Accepts Kafka's assignor names ("range", "cooperative-sticky") and the kafka-clients class names that stand
     * for them, so that a Kafka properties file works unchanged.
     */
    private static List<String> parseAssignors(String text) {
        List<String> names = new java.util.ArrayList<>();
        for (String entry : text.split(",")) {
            String trimmed = entry.trim();
            String name;
            if (trimmed.equals("range") || trimmed.endsWith(".RangeAssignor")) {
                name = "range";
            } else if (trimmed.equals("cooperative-sticky") || trimmed.endsWith(".CooperativeStickyAssignor")) {
                name = "cooperative-sticky";
            } else {
                throw new CairnConfigException("partition.assignment.strategy entry '" + trimmed
                        + "' is not supported; use range or cooperative-sticky");
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            throw new CairnConfigException("partition.assignment.strategy names no assignor");
        }
        return List.copyOf(names);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Reads Kafka-named settings; unknown keys are rejected. */
    public static ConsumerConfig fromProperties(Properties properties) {
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

    /** The group id, or null without one. */
    public String groupId() {
        return groupId;
    }

    public OffsetReset offsetReset() {
        return offsetReset;
    }

    public int fetchMinBytes() {
        return fetchMinBytes;
    }

    public int fetchMaxBytes() {
        return fetchMaxBytes;
    }

    public int fetchMaxWaitMs() {
        return fetchMaxWaitMs;
    }

    public int partitionFetchBytesMax() {
        return partitionFetchBytesMax;
    }

    public int pollRecordsMax() {
        return pollRecordsMax;
    }

    public int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public long retryBackoffMs() {
        return retryBackoffMs;
    }

    public long defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }

    public boolean checkCrcs() {
        return checkCrcs;
    }

    /** enable.auto.commit: commit positions every auto.commit.interval.ms, before a rebalance and on close. */
    public boolean autoCommit() {
        return autoCommit;
    }

    public long autoCommitIntervalMs() {
        return autoCommitIntervalMs;
    }

    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public int heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    /** Also the rebalance timeout sent in JoinGroup, as in kafka-clients. */
    public int maxPollIntervalMs() {
        return maxPollIntervalMs;
    }

    /** The assignor names in order of preference ("range", "cooperative-sticky"). */
    public List<String> assignors() {
        return assignors;
    }

    /** The static member id (group.instance.id), or null. */
    public String groupInstanceId() {
        return groupInstanceId;
    }

    /** How often the group leader re-reads the subscribed topics' metadata to notice added partitions. */
    public long metadataMaxAgeMs() {
        return metadataMaxAgeMs;
    }

    /** Typed setters for the same keys; {@link #set} takes any Kafka-named key. */
    public static final class Builder {
        private final ConfigValues values = new ConfigValues("consumer", KEYS);

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

        public Builder groupId(String groupId) {
            return set(GROUP_ID, groupId);
        }

        public Builder offsetReset(OffsetReset reset) {
            return set(AUTO_OFFSET_RESET, reset.name().toLowerCase(Locale.ROOT));
        }

        public Builder maxPollRecords(int records) {
            return set(MAX_POLL_RECORDS, records);
        }

        public Builder fetchMaxWaitMs(int ms) {
            return set(FETCH_MAX_WAIT_MS, ms);
        }

        public Builder partitionFetchBytesMax(int bytes) {
            return set(MAX_PARTITION_FETCH_BYTES, bytes);
        }

        public Builder autoCommit(boolean enabled) {
            return set(ENABLE_AUTO_COMMIT, enabled);
        }

        public Builder heartbeatIntervalMs(int ms) {
            return set(HEARTBEAT_INTERVAL_MS, ms);
        }

        public Builder sessionTimeoutMs(int ms) {
            return set(SESSION_TIMEOUT_MS, ms);
        }

        public Builder metadataMaxAgeMs(long ms) {
            return set(METADATA_MAX_AGE_MS, ms);
        }

        /** Assignor names in order of preference: "range", "cooperative-sticky". */
        public Builder assignors(String... names) {
            return set(PARTITION_ASSIGNMENT_STRATEGY, String.join(",", names));
        }

        public ConsumerConfig build() {
            return new ConsumerConfig(values);
        }
    }
}
