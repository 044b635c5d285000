package dev.cairn.broker.config;

import static dev.cairn.broker.config.ConfigKey.boolKey;
import static dev.cairn.broker.config.ConfigKey.intKey;
import static dev.cairn.broker.config.ConfigKey.longKey;
import static dev.cairn.broker.config.ConfigKey.stringKey;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The broker's tunables. With no keys set this is a complete single-node cluster: Kafka listener
 * 127.0.0.1:9092, Raft listener 127.0.0.1:9093, data in {@code ./cairn-data}, topics auto-created with
 * replication factor 1. Keys use Kafka's names where the meaning is the same. {@link #validate()} rejects an
 * inconsistent configuration at start with a message naming the values. {@code explicitText} keeps the keys that
 * were set, with their text as given, so that DescribeConfigs can tell a set value from a default.
 */
public record BrokerConfig(
        int nodeId,
        HostPort listener,
        HostPort advertisedListener,
        HostPort raftListener,
        List<RaftVoter> raftVoters,
        Path dataDir,
        int numPartitions,
        int defaultReplicationFactor,
        boolean autoCreateTopicsEnable,
        long logSegmentBytes,
        long logSegmentMs,
        long logRetentionMs,
        long logRetentionBytes,
        long logRetentionCheckIntervalMs,
        long logFlushIntervalMessages,
        long logFlushIntervalMs,
        int messageMaxBytes,
        int socketRequestMaxBytes,
        int maxConnections,
        long replicaLagTimeMaxMs,
        long brokerSessionTimeoutMs,
        long raftSnapshotIntervalEntries,
        boolean autoLeaderRebalanceEnable,
        long leaderImbalanceCheckIntervalSeconds,
        long messageTimestampBeforeMaxMs,
        long messageTimestampAfterMaxMs,
        int groupMinSessionTimeoutMs,
        int groupMaxSessionTimeoutMs,
        int groupInitialRebalanceDelayMs,
        int groupMaxSize,
        int metricsPort,
        Map<String, String> explicitText) {

    public static final ConfigKey<Integer> NODE_ID = intKey("node.id", 1, 0, Integer.MAX_VALUE,
            "This broker's id; unique in the cluster. Not in raft.voters, the broker joins the cluster they form.");
    public static final ConfigKey<String> LISTENERS = stringKey("listeners", "127.0.0.1:9092",
            "Kafka listeners, host:port or NAME://host:port,... (NAME in listener.security.protocol.map: PLAINTEXT, "
            + "SSL, SASL_PLAINTEXT, SASL_SSL by default); distinct names and ports.");
    public static final ConfigKey<String> ADVERTISED_LISTENERS = stringKey("advertised.listeners", "",
            "Addresses clients are told to use, NAME://host:port,... by listener name; a listener not named "
            + "advertises its own address.");
    public static final ConfigKey<String> RAFT_LISTENER = stringKey("raft.listener", "127.0.0.1:9093",
            "Raft (gRPC) listener for broker-to-broker traffic.");
    public static final ConfigKey<String> RAFT_VOTERS = stringKey("raft.voters", "",
            "Metadata-group voters as id@host:port,...; empty means this node alone. A joining broker lists the "
            + "cluster's voters it contacts to join.");
    public static final ConfigKey<String> LOG_DIRS = stringKey("log.dirs", "./cairn-data",
            "Data directory: partition logs, Raft logs, RocksDB offsets.");
    public static final ConfigKey<Integer> NUM_PARTITIONS = intKey("num.partitions", 1, 1,
            Limits.PARTITIONS_PER_TOPIC_MAX, "Partitions of an auto-created topic.");
    public static final ConfigKey<Integer> DEFAULT_REPLICATION_FACTOR = intKey("default.replication.factor", 1,
            1, 7, "Replicas of an auto-created topic.");
    public static final ConfigKey<Boolean> AUTO_CREATE_TOPICS_ENABLE = boolKey("auto.create.topics.enable", true,
            "Create a topic when a client asks for metadata or produces to an unknown one.");
    public static final ConfigKey<Long> LOG_SEGMENT_BYTES = longKey("log.segment.bytes", 1L << 30,
            Limits.SEGMENT_BYTES_MIN, Limits.SEGMENT_BYTES_MAX, "Roll a segment when it reaches this size.");
    public static final ConfigKey<Long> LOG_SEGMENT_MS = longKey("log.segment.ms", 7L * 24 * 3600 * 1000, 1,
            Long.MAX_VALUE, "Roll a segment when its first batch is this old.");
    public static final ConfigKey<Long> LOG_RETENTION_MS = longKey("log.retention.ms", 7L * 24 * 3600 * 1000, -1,
            Long.MAX_VALUE, "Delete whole segments older than this; -1 keeps them forever.");
    public static final ConfigKey<Long> LOG_RETENTION_BYTES = longKey("log.retention.bytes", -1, -1,
            Long.MAX_VALUE, "Delete oldest segments while a partition is larger than this; -1 is unlimited.");
    public static final ConfigKey<Long> LOG_RETENTION_CHECK_INTERVAL_MS = longKey("log.retention.check.interval.ms",
            300_000L, 1000, Long.MAX_VALUE, "How often each partition leader applies retention (and roll by age).");
    public static final ConfigKey<Long> LOG_CLEANER_BACKOFF_MS = longKey("log.cleaner.backoff.ms", 15_000L, 100,
            3_600_000L, "How often each leader of a compacted topic's partition checks whether a compaction pass is "
            + "due.");
    public static final ConfigKey<Long> LOG_FLUSH_INTERVAL_MESSAGES = longKey("log.flush.interval.messages",
            Long.MAX_VALUE, 1, Long.MAX_VALUE, "fsync a partition log after this many batches. 1 also makes every "
            + "acknowledged produce wait until a majority of replicas fsynced it (otherwise: written, fsync follows; "
            + "see Durability).");
    public static final ConfigKey<Long> LOG_FLUSH_INTERVAL_MS = longKey("log.flush.interval.ms", Long.MAX_VALUE, 1,
            Long.MAX_VALUE, "fsync a partition log when its oldest unflushed batch is this old.");
    public static final ConfigKey<Integer> MESSAGE_MAX_BYTES = intKey("message.max.bytes", 1_048_588, 64,
            Limits.RECORD_BATCH_BYTES_MAX, "Largest record batch accepted (MESSAGE_TOO_LARGE above) for a topic "
            + "that sets no max.message.bytes. A topic may allow more up to what its Raft group carries: 16 MiB less "
            + "64 KiB on the cairn engine (also this key's largest value there); this key itself on ratis, where each "
            + "hosted partition holds about this much direct memory for its Raft log buffer.");
    public static final ConfigKey<Integer> SOCKET_REQUEST_MAX_BYTES = intKey("socket.request.max.bytes",
            104_857_600, 1024, Limits.REQUEST_BYTES_MAX, "Largest request frame; larger ones close the connection.");
    public static final ConfigKey<Integer> MAX_CONNECTIONS = intKey("max.connections", 10_000, 1,
            Limits.CONNECTIONS_MAX, "Open client connections; further ones are closed at once.");
    public static final ConfigKey<Long> REPLICA_LAG_TIME_MAX_MS = longKey("replica.lag.time.max.ms", 30_000L, 100,
            Long.MAX_VALUE, "A follower not caught up with its leader for this long leaves the in-sync replicas.");
    public static final ConfigKey<Long> BROKER_SESSION_TIMEOUT_MS = longKey("broker.session.timeout.ms", 9_000L,
            100, Long.MAX_VALUE, "A broker the metadata leader has not heard from for this long is dead for groups.");
    public static final ConfigKey<Long> RAFT_SNAPSHOT_INTERVAL_ENTRIES = longKey("raft.snapshot.interval.entries",
            10_000L, 10, Long.MAX_VALUE, "Snapshot a partition every this many Raft entries, then purge its Raft "
            + "log; a follower behind the purge point is sent the snapshot with its segment files.");
    public static final ConfigKey<Long> RAFT_SNAPSHOT_INTERVAL_BYTES = longKey("raft.snapshot.interval.bytes",
            64L * 1024 * 1024, 1024 * 1024, Long.MAX_VALUE, "Snapshot a partition also once this many bytes of Raft "
            + "entries were applied since its last snapshot, so its Raft log (which holds every batch until then) "
            + "stays bounded by bytes as well as by entries.");
    public static final ConfigKey<Boolean> AUTO_LEADER_REBALANCE_ENABLE = boolKey("auto.leader.rebalance.enable",
            true, "Hand partition leadership back to preferred replicas that are in sync.");
    public static final ConfigKey<Long> LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS = longKey(
            "leader.imbalance.check.interval.seconds", 300, 1, Long.MAX_VALUE / 1000,
            "How often each broker checks whether it leads partitions whose preferred leader is in sync.");
    public static final ConfigKey<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS = longKey(
            "message.timestamp.before.max.ms", Long.MAX_VALUE, 0, Long.MAX_VALUE,
            "Reject batches whose timestamps lie further in the past (INVALID_TIMESTAMP).");
    public static final ConfigKey<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS = longKey(
            "message.timestamp.after.max.ms", 3_600_000L, 0, Long.MAX_VALUE,
            "Reject batches whose timestamps lie further in the future (INVALID_TIMESTAMP).");

    public static final ConfigKey<Integer> GROUP_MIN_SESSION_TIMEOUT_MS = intKey("group.min.session.timeout.ms",
            6_000, 1, Limits.GROUP_SESSION_TIMEOUT_MS_MAX,
            "Shortest session timeout a group member may ask for (INVALID_SESSION_TIMEOUT below).");
    public static final ConfigKey<Integer> GROUP_MAX_SESSION_TIMEOUT_MS = intKey("group.max.session.timeout.ms",
            1_800_000, 1, Limits.GROUP_SESSION_TIMEOUT_MS_MAX,
            "Longest session timeout a group member may ask for (INVALID_SESSION_TIMEOUT above).");
    public static final ConfigKey<Integer> GROUP_INITIAL_REBALANCE_DELAY_MS = intKey(
            "group.initial.rebalance.delay.ms", 3_000, 0, Limits.GROUP_REBALANCE_TIMEOUT_MS_MAX,
            "How long the first rebalance of an empty group waits for more members to join.");
    public static final ConfigKey<Integer> GROUP_MAX_SIZE = intKey("group.max.size", 1_000, 1,
            Limits.GROUP_MEMBERS_MAX, "Members in one consumer group (GROUP_MAX_SIZE_REACHED above).");

    public static final ConfigKey<Integer> NUM_IO_THREADS = intKey("num.io.threads", 8, 1,
            Limits.SUBMIT_THREADS_MAX, "Threads that hand produced batches and other commands to the partitions' "
            + "Raft groups, so that network threads never wait on a group; one slow group holds at most one.");
    public static final ConfigKey<Long> QUEUED_MAX_REQUEST_BYTES = longKey("queued.max.request.bytes",
            256L * 1024 * 1024, -1, Long.MAX_VALUE, "Bytes of requests read and not yet answered, over all "
            + "connections; above it the broker stops reading from connections that send more. -1: no such bound "
            + "(each connection still has at most 100 requests in flight).");

    public static final ConfigKey<Integer> METRICS_PORT = intKey("metrics.port", -1, -1, 65_535,
            "Prometheus scrape port (GET /metrics) on the listener's host; -1 disables it, 0 picks a free port.");

    /** Every key, in the order the README and sample configs list them. */
    public static final List<ConfigKey<?>> KEYS = Stream.concat(Stream.of(NODE_ID, LISTENERS, ADVERTISED_LISTENERS,
            RAFT_LISTENER,
            RAFT_VOTERS, LOG_DIRS, NUM_PARTITIONS, DEFAULT_REPLICATION_FACTOR, AUTO_CREATE_TOPICS_ENABLE,
            LOG_SEGMENT_BYTES, LOG_SEGMENT_MS, LOG_RETENTION_MS, LOG_RETENTION_BYTES, LOG_RETENTION_CHECK_INTERVAL_MS,
            LOG_FLUSH_INTERVAL_MESSAGES,
            LOG_FLUSH_INTERVAL_MS, MESSAGE_MAX_BYTES, SOCKET_REQUEST_MAX_BYTES, MAX_CONNECTIONS,
            REPLICA_LAG_TIME_MAX_MS, BROKER_SESSION_TIMEOUT_MS, RAFT_SNAPSHOT_INTERVAL_ENTRIES,
            RAFT_SNAPSHOT_INTERVAL_BYTES, AUTO_LEADER_REBALANCE_ENABLE,
            LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS,
            MESSAGE_TIMESTAMP_BEFORE_MAX_MS, MESSAGE_TIMESTAMP_AFTER_MAX_MS, GROUP_MIN_SESSION_TIMEOUT_MS,
            GROUP_MAX_SESSION_TIMEOUT_MS, GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SIZE, NUM_IO_THREADS,
            QUEUED_MAX_REQUEST_BYTES, METRICS_PORT, LOG_CLEANER_BACKOFF_MS), Stream.of(SecurityKeys.KEYS,
            RaftTlsKeys.KEYS, TransactionKeys.KEYS, RaftEngineKeys.KEYS).flatMap(List::stream)).toList();

    public BrokerConfig {
        raftVoters = List.copyOf(raftVoters);
        explicitText = Map.copyOf(explicitText);
    }

    /** The first Kafka listener: its name, security protocol and address (Cairn's own tools connect to it). */
    public KafkaListener kafkaListener() {
        return kafkaListeners().get(0);
    }

    /** Every Kafka listener, in the order {@code listeners} gives them. */
    public List<KafkaListener> kafkaListeners() {
        return KafkaListener.parseAll(text(LISTENERS), text(SecurityKeys.LISTENER_SECURITY_PROTOCOL_MAP));
    }

    /** The address each listener advertises to clients, by listener name. */
    public Map<String, HostPort> advertisedListeners() {
        return KafkaListener.advertised(kafkaListeners(), text(ADVERTISED_LISTENERS));
    }

    /** The text of a key outside {@link #KEYS} (a listener's JAAS key), or null when it was not set. */
    public String extraText(String key) {
        return explicitText.get(key);
    }

    /** {@code num.io.threads}: threads handing commands to Raft groups. */
    public int numIoThreads() {
        return NUM_IO_THREADS.parse(text(NUM_IO_THREADS));
    }

    /** {@code log.cleaner.backoff.ms}: how often leaders check whether a compaction pass is due. */
    public long logCleanerBackoffMs() {
        return LOG_CLEANER_BACKOFF_MS.parse(text(LOG_CLEANER_BACKOFF_MS));
    }

    /** {@code raft.engine}: the Raft implementation of the partitions' groups. */
    public RaftEngineKeys.Engine raftEngine() {
        return RaftEngineKeys.RAFT_ENGINE.parse(text(RaftEngineKeys.RAFT_ENGINE));
    }

    /** {@code raft.engine.listener}, or raft.listener's host with port 0 (any free port) when it is not set. */
    public HostPort raftEngineListener() {
        String text = text(RaftEngineKeys.RAFT_ENGINE_LISTENER);
        return text.isEmpty() ? new HostPort(raftListener.host(), 0) : HostPort.parse(text);
    }

    /** {@code raft.snapshot.interval.bytes}: applied bytes after which a partition group snapshots. */
    public long raftSnapshotIntervalBytes() {
        return RAFT_SNAPSHOT_INTERVAL_BYTES.parse(text(RAFT_SNAPSHOT_INTERVAL_BYTES));
    }

    /** {@code queued.max.request.bytes}: the broker-wide budget of unanswered request bytes, -1 for none. */
    public long queuedMaxRequestBytes() {
        return QUEUED_MAX_REQUEST_BYTES.parse(text(QUEUED_MAX_REQUEST_BYTES));
    }

    /**
     * Whether a produce is acknowledged only once a majority of its replicas fsynced it ({@code
     * log.flush.interval.messages=1}, Kafka's flush-every-message), rather than once a majority wrote it to the
     * operating system, segments fsynced on Kafka's schedule (Kafka's default durability). See README "Durability".
     */
    public boolean fsyncBeforeAck() {
        return logFlushIntervalMessages == 1;
    }

    /**
     * Whether {@code key} was set (in the properties file or with {@code --set}) rather than left at its default;
     * DescribeConfigs reports the first as a static broker config and the second as a default, as Kafka does.
     */
    public boolean isExplicit(ConfigKey<?> key) {
        return explicitText.containsKey(key.name());
    }

    /**
     * The text of {@code key} on {@code listener}: the listener's own value ({@code listener.name.<name>.<key>}, keys
     * in {@link SecurityKeys#PER_LISTENER}) when set, otherwise the broker-wide one.
     */
    public String text(ConfigKey<?> key, KafkaListener listener) {
        String given = explicitText.get(SecurityKeys.listenerKey(listener.name(), key));
        return given == null ? text(key) : given.trim();
    }

    /** The name of the key {@link #text(ConfigKey, KafkaListener)} reads, for messages about its value. */
    public String keyName(ConfigKey<?> key, KafkaListener listener) {
        String override = SecurityKeys.listenerKey(listener.name(), key);
        return explicitText.containsKey(override) ? override : key.name();
    }

    /** The text {@code key} was set to (trimmed), or its default text when it was not set. */
    public String text(ConfigKey<?> key) {
        String given = explicitText.get(key.name());
        return given == null ? key.defaultText() : given.trim();
    }

    /** The embedded single-node defaults. */
    public static BrokerConfig defaults() {
        return fromMap(Map.of());
    }

    /**
     * Builds a config from key/value text (a properties file overlaid with {@code --set} pairs). Unknown keys
     * are rejected: a typo must not silently fall back to a default.
     */
    public static BrokerConfig fromMap(Map<String, String> values) {
        List<String> unknown = new ArrayList<>();
        for (String key : values.keySet()) {
            if (KEYS.stream().noneMatch(k -> k.name().equals(key)) && !SecurityKeys.isJaasKey(key)
                    && SecurityKeys.overriddenListener(key) == null && !SecurityKeys.isOAuthBearerHandlerKey(key)) {
                unknown.add(key);
            }
            if (SecurityKeys.isOAuthBearerHandlerKey(key)
                    && !SecurityKeys.OAUTHBEARER_VALIDATOR_CLASS.equals(values.get(key).trim())) {
                throw new ConfigException(key + "=" + values.get(key) + ": Cairn validates OAUTHBEARER tokens as "
                        + SecurityKeys.OAUTHBEARER_VALIDATOR_CLASS + " does (signed JWTs, "
                        + SecurityKeys.SASL_OAUTHBEARER_JWKS_ENDPOINT_URL.name() + "), and serves no other handler");
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown configuration keys " + unknown + "; known keys: "
                    + KEYS.stream().map(ConfigKey::name).toList());
        }
        Map<String, String> text = new LinkedHashMap<>();
        for (ConfigKey<?> key : KEYS) {
            text.put(key.name(), values.getOrDefault(key.name(), key.defaultText()));
        }
        int nodeId = NODE_ID.parse(text.get(NODE_ID.name()));
        List<KafkaListener> kafkaListeners = KafkaListener.parseAll(LISTENERS.parse(text.get(LISTENERS.name())),
                text.get(SecurityKeys.LISTENER_SECURITY_PROTOCOL_MAP.name()));
        KafkaListener kafkaListener = kafkaListeners.get(0);
        HostPort listener = kafkaListener.address();
        Map<String, HostPort> advertised = KafkaListener.advertised(kafkaListeners,
                ADVERTISED_LISTENERS.parse(text.get(ADVERTISED_LISTENERS.name())));
        HostPort raftListener = HostPort.parse(RAFT_LISTENER.parse(text.get(RAFT_LISTENER.name())));
        String voters = RAFT_VOTERS.parse(text.get(RAFT_VOTERS.name()));
        BrokerConfig config = new BrokerConfig(
                nodeId,
                listener,
                advertised.get(kafkaListener.name()),
                raftListener,
                voters.isBlank() ? List.of(new RaftVoter(nodeId, raftListener)) : RaftVoter.parseList(voters),
                Path.of(LOG_DIRS.parse(text.get(LOG_DIRS.name()))),
                NUM_PARTITIONS.parse(text.get(NUM_PARTITIONS.name())),
                DEFAULT_REPLICATION_FACTOR.parse(text.get(DEFAULT_REPLICATION_FACTOR.name())),
                AUTO_CREATE_TOPICS_ENABLE.parse(text.get(AUTO_CREATE_TOPICS_ENABLE.name())),
                LOG_SEGMENT_BYTES.parse(text.get(LOG_SEGMENT_BYTES.name())),
                LOG_SEGMENT_MS.parse(text.get(LOG_SEGMENT_MS.name())),
                LOG_RETENTION_MS.parse(text.get(LOG_RETENTION_MS.name())),
                LOG_RETENTION_BYTES.parse(text.get(LOG_RETENTION_BYTES.name())),
                LOG_RETENTION_CHECK_INTERVAL_MS.parse(text.get(LOG_RETENTION_CHECK_INTERVAL_MS.name())),
                LOG_FLUSH_INTERVAL_MESSAGES.parse(text.get(LOG_FLUSH_INTERVAL_MESSAGES.name())),
                LOG_FLUSH_INTERVAL_MS.parse(text.get(LOG_FLUSH_INTERVAL_MS.name())),
                MESSAGE_MAX_BYTES.parse(text.get(MESSAGE_MAX_BYTES.name())),
                SOCKET_REQUEST_MAX_BYTES.parse(text.get(SOCKET_REQUEST_MAX_BYTES.name())),
                MAX_CONNECTIONS.parse(text.get(MAX_CONNECTIONS.name())),
                REPLICA_LAG_TIME_MAX_MS.parse(text.get(REPLICA_LAG_TIME_MAX_MS.name())),
                BROKER_SESSION_TIMEOUT_MS.parse(text.get(BROKER_SESSION_TIMEOUT_MS.name())),
                RAFT_SNAPSHOT_INTERVAL_ENTRIES.parse(text.get(RAFT_SNAPSHOT_INTERVAL_ENTRIES.name())),
                AUTO_LEADER_REBALANCE_ENABLE.parse(text.get(AUTO_LEADER_REBALANCE_ENABLE.name())),
                LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS.parse(text.get(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS.name())),
                MESSAGE_TIMESTAMP_BEFORE_MAX_MS.parse(text.get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS.name())),
                MESSAGE_TIMESTAMP_AFTER_MAX_MS.parse(text.get(MESSAGE_TIMESTAMP_AFTER_MAX_MS.name())),
                GROUP_MIN_SESSION_TIMEOUT_MS.parse(text.get(GROUP_MIN_SESSION_TIMEOUT_MS.name())),
                GROUP_MAX_SESSION_TIMEOUT_MS.parse(text.get(GROUP_MAX_SESSION_TIMEOUT_MS.name())),
                GROUP_INITIAL_REBALANCE_DELAY_MS.parse(text.get(GROUP_INITIAL_REBALANCE_DELAY_MS.name())),
                GROUP_MAX_SIZE.parse(text.get(GROUP_MAX_SIZE.name())),
                METRICS_PORT.parse(text.get(METRICS_PORT.name())),
                values);
        config.numIoThreads();
        config.logCleanerBackoffMs();
        checkOverridesNameListeners(values.keySet(), kafkaListeners);
        for (KafkaListener each : kafkaListeners) {
            if (each.protocol().tls()) {
                TlsSettings.of(config, each);
            }
            if (each.protocol().sasl()) {
                SaslSettings.of(config, each);
            }
        }
        config.raftSnapshotIntervalBytes();
        // Parsed where the coordinator is built; checked here so that a bad value stops the broker before it starts.
        TransactionKeys.KEYS.forEach(key -> key.parse(config.text(key)));
        if (config.queuedMaxRequestBytes() == 0) {
            throw new ConfigException("queued.max.request.bytes must be positive, or -1 for no bound; got 0");
        }
        config.validate();
        return config;
    }

    /** A per-listener key naming no listener is a typo (or a forgotten listener), never silently ignored. */
    private static void checkOverridesNameListeners(Set<String> keys, List<KafkaListener> listeners) {
        for (String key : keys) {
            String listener = SecurityKeys.overriddenListener(key);
            if (listener != null && listeners.stream().noneMatch(l -> l.name().equalsIgnoreCase(listener))) {
                throw new ConfigException(key + " sets a value for the listener " + listener.toUpperCase(Locale.ROOT)
                        + ", which listeners does not name (" + listeners.stream().map(KafkaListener::name).toList()
                        + ")");
            }
        }
    }

    /**
     * Settings that are valid but probably a mistake, for the broker to log at start. This node's entry in
     * raft.voters is where the other brokers, and this node's own Raft client, reach its Raft server; when its port
     * differs from raft.listener's, it only works through a port mapping (a container's published port). Without
     * one, every Raft call to this node fails and the broker never becomes ready.
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        for (RaftVoter voter : raftVoters) {
            if (voter.nodeId() == nodeId && raftListener.port() != 0
                    && voter.address().port() != raftListener.port()) {
                warnings.add("raft.voters gives this node (node.id=" + nodeId + ") the address " + voter.address()
                        + ", but its Raft server listens on raft.listener=" + raftListener + "; Raft calls to this "
                        + "node go to " + voter.address() + ", so that must forward to " + raftListener
                        + " (a port mapping), or set raft.listener to match");
            }
        }
        return warnings;
    }

    /**
     * Whether this broker joins an existing cluster: its node id is not among raft.voters (the brokers it joins), and
     * it asks them to take it into the metadata group (README, "Adding a broker").
     */
    public boolean joinsCluster() {
        return raftVoters.stream().noneMatch(v -> v.nodeId() == nodeId);
    }

    /** Checks how values relate; each message names both values. */
    public void validate() {
        List<String> problems = new ArrayList<>();
        if (joinsCluster() && (raftListener.port() == 0 || raftListener.host().isEmpty()
                || raftListener.host().equals("0.0.0.0") || raftListener.host().equals("::"))) {
            problems.add("node.id=" + nodeId + " is not among raft.voters=" + raftVoters + ", so this broker joins "
                    + "the cluster they form, and the others reach its Raft server at raft.listener=" + raftListener
                    + ": give it a reachable host and a fixed port");
        }
        if (joinsCluster() && raftVoters.stream().anyMatch(v -> v.address().equals(raftListener))) {
            problems.add("node.id=" + nodeId + " is not among raft.voters=" + raftVoters + ", so this broker joins "
                    + "the cluster they form, but its raft.listener=" + raftListener + " is a voter's address");
        }
        if (raftVoters.stream().map(RaftVoter::nodeId).distinct().count() != raftVoters.size()) {
            problems.add("raft.voters=" + raftVoters + " names a node id twice");
        }
        if (defaultReplicationFactor > raftVoters.size()) {
            problems.add("default.replication.factor=" + defaultReplicationFactor + " exceeds the "
                    + raftVoters.size() + " brokers in raft.voters=" + raftVoters);
        }
        if (messageMaxBytes > logSegmentBytes) {
            problems.add("message.max.bytes=" + messageMaxBytes + " exceeds log.segment.bytes=" + logSegmentBytes);
        }
        if ((long) messageMaxBytes + Limits.REQUEST_OVERHEAD_BYTES > socketRequestMaxBytes) {
            problems.add("socket.request.max.bytes=" + socketRequestMaxBytes + " cannot carry a batch of "
                    + "message.max.bytes=" + messageMaxBytes + " plus " + Limits.REQUEST_OVERHEAD_BYTES
                    + " bytes of request overhead");
        }
        for (KafkaListener each : kafkaListeners()) {
            HostPort address = each.address();
            if (address.port() != 0 && address.equals(raftListener)) {
                problems.add("listeners=" + each + " and raft.listener=" + raftListener + " are the same address");
            }
            if (metricsPort > 0 && metricsPort == address.port()) {
                problems.add("metrics.port=" + metricsPort + " is also the port of listeners=" + each);
            }
        }
        if (metricsPort > 0 && metricsPort == raftListener.port()) {
            problems.add("metrics.port=" + metricsPort + " is also the port of raft.listener=" + raftListener);
        }
        if (groupMinSessionTimeoutMs > groupMaxSessionTimeoutMs) {
            problems.add("group.min.session.timeout.ms=" + groupMinSessionTimeoutMs
                    + " exceeds group.max.session.timeout.ms=" + groupMaxSessionTimeoutMs);
        }
        problems.addAll(RaftEngineKeys.problems(this));
        if (!problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", problems));
        }
    }
}
