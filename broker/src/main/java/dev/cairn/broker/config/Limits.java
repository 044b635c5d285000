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
    /** Partitions (Raft groups) one broker hosts: each costs about six threads (see docs/ratis.md B.1). */
    public static final int PARTITIONS_PER_BROKER_MAX = 1000;
    /** Partitions in one topic. */
    public static final int PARTITIONS_PER_TOPIC_MAX = 1000;
    /** Topic names are at most 249 characters (Kafka's rule). */
    public static final int TOPIC_NAME_CHARS_MAX = 249;
    /** Open client connections per broker; {@code max.connections} may only lower it. */
    public static final int CONNECTIONS_MAX = 65_536;
    /** Overhead a produce request carries around its batches (headers, topic names, arrays). */
    public static final int REQUEST_OVERHEAD_BYTES = 64 * 1024;

    static {
        check(SEGMENT_BYTES_MAX <= Integer.MAX_VALUE, "SEGMENT_BYTES_MAX must fit 32-bit index positions");
        check(REQUEST_BYTES_MAX >= RECORD_BATCH_BYTES_MAX + REQUEST_OVERHEAD_BYTES,
                "REQUEST_BYTES_MAX must hold a largest batch plus request overhead");
        check(RECORD_BATCH_BYTES_MAX <= SEGMENT_BYTES_MAX, "a largest batch must fit in a segment");
        check(PARTITIONS_PER_TOPIC_MAX <= PARTITIONS_PER_BROKER_MAX, "a topic must fit on one broker");
    }

    private Limits() {
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new ExceptionInInitializerError("Limits: " + message);
        }
    }
}
