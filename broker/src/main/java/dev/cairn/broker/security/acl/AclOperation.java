package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * The operations an ACL can grant or refuse, with Kafka's numeric codes (org.apache.kafka.common.acl.AclOperation,
 * kafka-clients 4.4). The codes double as bit positions in the authorized-operations fields of Metadata,
 * DescribeCluster and DescribeGroups responses. Kafka's UNKNOWN (0) has no constant here: {@link #fromCode} is
 * empty for it.
 */
public enum AclOperation {
    /** Filters only: any operation. */
    ANY(1),
    /** In a binding: every operation. */
    ALL(2),
    READ(3),
    WRITE(4),
    CREATE(5),
    DELETE(6),
    ALTER(7),
    DESCRIBE(8),
    CLUSTER_ACTION(9),
    DESCRIBE_CONFIGS(10),
    ALTER_CONFIGS(11),
    IDEMPOTENT_WRITE(12),
    CREATE_TOKENS(13),
    DESCRIBE_TOKENS(14),
    /**
     * Kafka 4's two-phase-commit transactions (KIP-939) on a transactional id. Kept so that an ACL a Kafka 4.4
     * client creates with it is stored, listed and deleted like any other rather than refused as unknown.
     */
    TWO_PHASE_COMMIT(15);

    private static final AclOperation[] VALUES = values();

    private final byte code;

    AclOperation(int code) {
        this.code = (byte) code;
    }

    /** Kafka's wire code, also the operation's bit position in an authorized-operations field. */
    public byte code() {
        return code;
    }

    /** The operation with Kafka's wire code {@code code}, or empty for 0 (Kafka's UNKNOWN) and unknown codes. */
    public static Optional<AclOperation> fromCode(byte code) {
        for (AclOperation operation : VALUES) {
            if (operation.code == code) {
                return Optional.of(operation);
            }
        }
        return Optional.empty();
    }
}
