package dev.cairn.broker.config;

/**
 * Every fixed bound the broker enforces, with its unit in the name (style.md point 8). Tunables that an
 * operator may change live in {@link BrokerConfig}; these are the hard ceilings those tunables are checked
 * against, and the sizes of queues and loops that are not worth a knob. The static block checks how they
 * relate, so an inconsistent edit fails the first time the class loads (in every test run).
 */
public final class Limits {
    /** Largest request frame accepted at all; {@code socket.request.max.bytes} may only lower it. */
    public static final int REQUEST_BYTES_MAX = 512 * 1024 * 1024;
    /**
     * Largest frame read from a connection that has not logged in yet, on a SASL listener (Kafka's
     * sasl.server.max.receive.size default): ApiVersions and SASL tokens are a few hundred bytes.
     */
    public static final int UNAUTHENTICATED_FRAME_BYTES_MAX = 512 * 1024;
    /**
     * How long a TLS client has to finish its handshake; a connection that stops half way (a truncated ClientHello)
     * is closed then, and TLS records before the handshake is done are bounded by TLS itself (16 KiB each).
     */
    public static final long TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
    /**
     * ACL bindings or SCRAM credentials one request may create, change or remove: each change is replicated in one
     * metadata Raft entry, which must stay well inside the Raft log's entry limit (about message.max.bytes). A
     * DeleteAcls filter matching more is applied in entries of this many.
     */
    public static final int SECURITY_CHANGES_PER_ENTRY_MAX = 1000;
    /**
     * Configs one topic may hold, and one partition Reconfigure command may carry: Cairn accepts a handful of names,
     * so this only bounds what a corrupt or hostile entry can make a replica allocate.
     */
    public static final int TOPIC_CONFIGS_MAX = 256;
    /** Longest SASL session (connections.max.reauth.ms): a year, so that nanosecond deadlines cannot overflow. */
    public static final long CONNECTIONS_MAX_REAUTH_MS_MAX = 365L * 24 * 3600 * 1000;
    /** Largest record batch the broker stores; {@code message.max.bytes} may only lower it. */
    public static final int RECORD_BATCH_BYTES_MAX = 64 * 1024 * 1024;
    /** Segment files are addressed with 32-bit positions in the offset index. */
    public static final long SEGMENT_BYTES_MAX = Integer.MAX_VALUE;
    /** Smallest segment: a segment must hold at least one batch header and a record. */
    public static final long SEGMENT_BYTES_MIN = 1024;
    /** Longest a fetch may park waiting for {@code min.bytes}, whatever the client asks. */
    public static final int FETCH_WAIT_MS_MAX = 30_000;
    /** Requests a connection may have in flight before the broker stops reading from it. */
    public static final int INFLIGHT_REQUESTS_PER_CONNECTION_MAX = 100;
    /** Appends submitted to one partition's Raft group and not yet answered. */
    public static final int PENDING_APPENDS_PER_PARTITION_MAX = 4096;
    /** Partitions (Raft groups) one broker hosts on Ratis: each costs about six threads (see docs/ratis.md B.1). */
    public static final int PARTITIONS_PER_BROKER_MAX = 1000;
    /**
     * Partitions one broker hosts on Cairn's engine (raft.engine=cairn): groups share its loops, so the bound is
     * memory and start-up time. Measured (bench/partition-scale.sh, one broker, -Xmx1g): 1,000 idle partitions cost
     * 2% of a core, 64 threads, 12 MiB of direct memory; see docs/multi-raft.md for 3,000.
     */
    public static final int ENGINE_PARTITIONS_PER_BROKER_MAX = 5000;
    /** Most threads handing commands to Raft groups ({@code num.io.threads}). */
    public static final int SUBMIT_THREADS_MAX = 256;
    /** Partitions in one topic. */
    public static final int PARTITIONS_PER_TOPIC_MAX = 1000;
    /** Topic names are at most 249 characters (Kafka's rule). */
    public static final int TOPIC_NAME_CHARS_MAX = 249;
    /** Open client connections per broker; {@code max.connections} may only lower it. */
    public static final int CONNECTIONS_MAX = 65_536;
    /** Overhead a produce request carries around its batches (headers, topic names, arrays). */
    public static final int REQUEST_OVERHEAD_BYTES = 64 * 1024;
    /** Members (joined or awaiting their first rejoin) in one consumer group; {@code group.max.size} may lower it. */
    public static final int GROUP_MEMBERS_MAX = 10_000;
    /**
     * Consumer groups one broker coordinates. Every group costs memory for its members' subscriptions and
     * assignments, so the coordinator refuses new groups past this once it has dropped its memberless ones.
     */
    public static final int GROUPS_PER_BROKER_MAX = 10_000;
    /**
     * Members and pending members (given an id with MEMBER_ID_REQUIRED) over all groups of one broker. Each holds
     * at most one parked JoinGroup and one parked SyncGroup response, so this also bounds the parked responses.
     */
    public static final int GROUP_MEMBERS_PER_BROKER_MAX = 100_000;
    /**
     * Longest rebalance a member may ask for. A JoinGroup or SyncGroup response is parked at most this long; a
     * larger {@code max.poll.interval.ms} is clamped, which only makes the coordinator answer sooner.
     */
    public static final int GROUP_REBALANCE_TIMEOUT_MS_MAX = 30 * 60 * 1000;
    /** Longest session timeout {@code group.max.session.timeout.ms} may allow (Kafka's default for that key). */
    public static final int GROUP_SESSION_TIMEOUT_MS_MAX = 30 * 60 * 1000;
    /**
     * Resources one DescribeConfigs request may name. Each costs a result of every config it has (a topic's dozen
     * entries with synonyms is about a kilobyte), so this bounds the response; a UI describing every topic fits.
     */
    public static final int DESCRIBE_CONFIGS_RESOURCES_MAX = 10_000;
    /**
     * Resources one AlterConfigs or IncrementalAlterConfigs request may change: each change is one metadata Raft entry,
     * all in flight together.
     */
    public static final int ALTER_CONFIGS_RESOURCES_MAX = 1_000;
    /**
     * Leadership transfers to partitions led on other brokers (ElectLeaders) waiting for the broker's one transfer
     * thread; more are refused at once (the election answers PREFERRED_LEADER_NOT_AVAILABLE for them).
     */
    public static final int LEADER_TRANSFERS_QUEUED_MAX = 10_000;
    /** Configuration keys one DescribeConfigs resource may list. */
    public static final int DESCRIBE_CONFIGS_KEYS_PER_RESOURCE_MAX = 1_000;
    /**
     * Partitions one AlterPartitionReassignments request may name: each is one metadata command, submitted at once;
     * the partitions past it are answered POLICY_VIOLATION.
     */
    public static final int REASSIGNMENTS_PER_REQUEST_MAX = 1_000;

    static {
        check(SEGMENT_BYTES_MAX <= Integer.MAX_VALUE, "SEGMENT_BYTES_MAX must fit 32-bit index positions");
        check(REQUEST_BYTES_MAX >= RECORD_BATCH_BYTES_MAX + REQUEST_OVERHEAD_BYTES,
                "REQUEST_BYTES_MAX must hold a largest batch plus request overhead");
        check(RECORD_BATCH_BYTES_MAX <= SEGMENT_BYTES_MAX, "a largest batch must fit in a segment");
        check(PARTITIONS_PER_TOPIC_MAX <= PARTITIONS_PER_BROKER_MAX, "a topic must fit on one broker");
        check(GROUP_MEMBERS_MAX <= GROUP_MEMBERS_PER_BROKER_MAX, "a largest group must fit on one broker");
    }

    private Limits() {
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new ExceptionInInitializerError("Limits: " + message);
        }
    }
}
