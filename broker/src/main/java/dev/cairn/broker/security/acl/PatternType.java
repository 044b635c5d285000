package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * How an ACL's resource name is read, with Kafka's numeric codes (org.apache.kafka.common.resource.PatternType).
 * A stored binding is {@link #LITERAL} or {@link #PREFIXED}; {@link #ANY} and {@link #MATCH} exist only in filters.
 * Kafka's UNKNOWN (0) has no constant here: {@link #fromCode} is empty for it.
 */
public enum PatternType {
    /** Filters only: a binding of any pattern type whose name equals the filter's exactly. */
    ANY(1),
    /**
     * Filters only: the bindings that would apply to a resource of the filter's name, i.e. LITERAL bindings with
     * that name or the wildcard "*", and PREFIXED bindings whose name starts it.
     */
    MATCH(2),
    /** The name is the resource's exact name, or "*" for every resource of the type. */
    LITERAL(3),
    /** The name is a prefix: the binding applies to every resource whose name starts with it. */
    PREFIXED(4);

    private static final PatternType[] VALUES = values();

    private final byte code;

    PatternType(int code) {
        this.code = (byte) code;
    }

    /** Kafka's wire code. */
    public byte code() {
        return code;
    }

    /** The pattern type with Kafka's wire code {@code code}, or empty for 0 (Kafka's UNKNOWN) and unknown codes. */
    public static Optional<PatternType> fromCode(byte code) {
        for (PatternType type : VALUES) {
            if (type.code == code) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
