package dev.cairn.protocol;

/**
 * Kafka protocol error codes that Cairn's broker returns and its client interprets. The numbers are protocol
 * constants (Kafka's {@code Errors}); {@link #retriable} says whether a client may retry the same request,
 * possibly after refreshing metadata.
 */
public enum ErrorCode {
    UNKNOWN_SERVER_ERROR(-1, false),
    NONE(0, false),
    OFFSET_OUT_OF_RANGE(1, false),
    CORRUPT_MESSAGE(2, true),
    UNKNOWN_TOPIC_OR_PARTITION(3, true),
    INVALID_FETCH_SIZE(4, false),
    LEADER_NOT_AVAILABLE(5, true),
    NOT_LEADER_OR_FOLLOWER(6, true),
    REQUEST_TIMED_OUT(7, true),
    BROKER_NOT_AVAILABLE(8, false),
    REPLICA_NOT_AVAILABLE(9, true),
    MESSAGE_TOO_LARGE(10, false),
    STALE_CONTROLLER_EPOCH(11, false),
    OFFSET_METADATA_TOO_LARGE(12, false),
    NETWORK_EXCEPTION(13, true),
    COORDINATOR_LOAD_IN_PROGRESS(14, true),
    COORDINATOR_NOT_AVAILABLE(15, true),
    NOT_COORDINATOR(16, true),
    INVALID_TOPIC_EXCEPTION(17, false),
    RECORD_LIST_TOO_LARGE(18, false),
    NOT_ENOUGH_REPLICAS(19, true),
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(20, true),
    INVALID_REQUIRED_ACKS(21, false),
    ILLEGAL_GENERATION(22, false),
    INCONSISTENT_GROUP_PROTOCOL(23, false),
    INVALID_GROUP_ID(24, false),
    UNKNOWN_MEMBER_ID(25, false),
    INVALID_SESSION_TIMEOUT(26, false),
    REBALANCE_IN_PROGRESS(27, false),
    INVALID_COMMIT_OFFSET_SIZE(28, false),
    TOPIC_AUTHORIZATION_FAILED(29, false),
    GROUP_AUTHORIZATION_FAILED(30, false),
    CLUSTER_AUTHORIZATION_FAILED(31, false),
    INVALID_TIMESTAMP(32, false),
    UNSUPPORTED_SASL_MECHANISM(33, false),
    ILLEGAL_SASL_STATE(34, false),
    UNSUPPORTED_VERSION(35, false),
    TOPIC_ALREADY_EXISTS(36, false),
    INVALID_PARTITIONS(37, false),
    INVALID_REPLICATION_FACTOR(38, false),
    INVALID_REPLICA_ASSIGNMENT(39, false),
    INVALID_CONFIG(40, false),
    NOT_CONTROLLER(41, true),
    INVALID_REQUEST(42, false),
    UNSUPPORTED_FOR_MESSAGE_FORMAT(43, false),
    POLICY_VIOLATION(44, false),
    OUT_OF_ORDER_SEQUENCE_NUMBER(45, false),
    DUPLICATE_SEQUENCE_NUMBER(46, false),
    INVALID_PRODUCER_EPOCH(47, false),
    INVALID_TXN_STATE(48, false),
    INVALID_PRODUCER_ID_MAPPING(49, false),
    INVALID_TRANSACTION_TIMEOUT(50, false),
    CONCURRENT_TRANSACTIONS(51, true),
    TRANSACTION_COORDINATOR_FENCED(52, false),
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED(53, false),
    SECURITY_DISABLED(54, false),
    OPERATION_NOT_ATTEMPTED(55, false),
    KAFKA_STORAGE_ERROR(56, true),
    LOG_DIR_NOT_FOUND(57, false),
    SASL_AUTHENTICATION_FAILED(58, false),
    UNKNOWN_PRODUCER_ID(59, false),
    REASSIGNMENT_IN_PROGRESS(60, false),
    DELEGATION_TOKEN_AUTH_DISABLED(61, false),
    DELEGATION_TOKEN_NOT_FOUND(62, false),
    DELEGATION_TOKEN_OWNER_MISMATCH(63, false),
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED(64, false),
    DELEGATION_TOKEN_AUTHORIZATION_FAILED(65, false),
    DELEGATION_TOKEN_EXPIRED(66, false),
    INVALID_PRINCIPAL_TYPE(67, false),
    NON_EMPTY_GROUP(68, false),
    GROUP_ID_NOT_FOUND(69, false),
    FETCH_SESSION_ID_NOT_FOUND(70, true),
    INVALID_FETCH_SESSION_EPOCH(71, true),
    LISTENER_NOT_FOUND(72, true),
    TOPIC_DELETION_DISABLED(73, false),
    FENCED_LEADER_EPOCH(74, true),
    UNKNOWN_LEADER_EPOCH(75, true),
    UNSUPPORTED_COMPRESSION_TYPE(76, false),
    STALE_BROKER_EPOCH(77, false),
    OFFSET_NOT_AVAILABLE(78, true),
    MEMBER_ID_REQUIRED(79, false),
    PREFERRED_LEADER_NOT_AVAILABLE(80, true),
    GROUP_MAX_SIZE_REACHED(81, false),
    FENCED_INSTANCE_ID(82, false),
    ELIGIBLE_LEADERS_NOT_AVAILABLE(83, true),
    ELECTION_NOT_NEEDED(84, true),
    NO_REASSIGNMENT_IN_PROGRESS(85, false),
    GROUP_SUBSCRIBED_TO_TOPIC(86, false),
    INVALID_RECORD(87, false),
    UNSTABLE_OFFSET_COMMIT(88, true),
    THROTTLING_QUOTA_EXCEEDED(89, true),
    PRODUCER_FENCED(90, false),
    RESOURCE_NOT_FOUND(91, false),
    DUPLICATE_RESOURCE(92, false),
    UNACCEPTABLE_CREDENTIAL(93, false),
    INCONSISTENT_VOTER_SET(94, false),
    INVALID_UPDATE_VERSION(95, false),
    FEATURE_UPDATE_FAILED(96, false),
    PRINCIPAL_DESERIALIZATION_FAILURE(97, false),
    SNAPSHOT_NOT_FOUND(98, false),
    POSITION_OUT_OF_RANGE(99, false),
    UNKNOWN_TOPIC_ID(100, true),
    DUPLICATE_BROKER_REGISTRATION(101, false),
    BROKER_ID_NOT_REGISTERED(102, false),
    INCONSISTENT_TOPIC_ID(103, true),
    INCONSISTENT_CLUSTER_ID(104, false),
    TRANSACTIONAL_ID_NOT_FOUND(105, false),
    FETCH_SESSION_TOPIC_ID_ERROR(106, true),
    INELIGIBLE_REPLICA(107, false),
    NEW_LEADER_ELECTED(108, false),
    OFFSET_MOVED_TO_TIERED_STORAGE(109, false),
    FENCED_MEMBER_EPOCH(110, false),
    UNRELEASED_INSTANCE_ID(111, false),
    UNSUPPORTED_ASSIGNOR(112, false),
    STALE_MEMBER_EPOCH(113, false),
    MISMATCHED_ENDPOINT_TYPE(114, false),
    UNSUPPORTED_ENDPOINT_TYPE(115, false),
    UNKNOWN_CONTROLLER_ID(116, false),
    UNKNOWN_SUBSCRIPTION_ID(117, false),
    TELEMETRY_TOO_LARGE(118, false),
    INVALID_REGISTRATION(119, false),
    TRANSACTION_ABORTABLE(120, false),
    INVALID_RECORD_STATE(121, false),
    SHARE_SESSION_NOT_FOUND(122, true),
    INVALID_SHARE_SESSION_EPOCH(123, true),
    FENCED_STATE_EPOCH(124, false),
    INVALID_VOTER_KEY(125, false),
    DUPLICATE_VOTER(126, false),
    VOTER_NOT_FOUND(127, false),
    INVALID_REGULAR_EXPRESSION(128, false),
    REBOOTSTRAP_REQUIRED(129, false);

    private static final ErrorCode[] BY_CODE = new ErrorCode[REBOOTSTRAP_REQUIRED.code + 2];

    static {
        for (ErrorCode error : values()) {
            BY_CODE[error.code + 1] = error;
        }
    }

    private final short code;
    private final boolean retriable;

    ErrorCode(int code, boolean retriable) {
        this.code = (short) code;
        this.retriable = retriable;
    }

    public short code() {
        return code;
    }

    /** True when the same request may succeed if retried (after a metadata refresh for the leader errors). */
    public boolean retriable() {
        return retriable;
    }

    /** The error for a wire code; codes this enum does not know map to {@link #UNKNOWN_SERVER_ERROR}. */
    public static ErrorCode forCode(short code) {
        int slot = code + 1;
        if (slot < 0 || slot >= BY_CODE.length || BY_CODE[slot] == null) {
            return UNKNOWN_SERVER_ERROR;
        }
        return BY_CODE[slot];
    }
}
