package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * Whether a binding grants or refuses, with Kafka's numeric codes (org.apache.kafka.common.acl.AclPermissionType).
 * Kafka's UNKNOWN (0) has no constant here: {@link #fromCode} is empty for it.
 */
public enum AclPermission {
    /** Filters only: either permission. */
    ANY(1),
    /** Refuses; a matching DENY beats any ALLOW. */
    DENY(2),
    ALLOW(3);

    private static final AclPermission[] VALUES = values();

    private final byte code;

    AclPermission(int code) {
        this.code = (byte) code;
    }

    /** Kafka's wire code. */
    public byte code() {
        return code;
    }

    /** The permission with Kafka's wire code {@code code}, or empty for 0 (Kafka's UNKNOWN) and unknown codes. */
    public static Optional<AclPermission> fromCode(byte code) {
        for (AclPermission permission : VALUES) {
            if (permission.code == code) {
                return Optional.of(permission);
            }
        }
        return Optional.empty();
    }
}
