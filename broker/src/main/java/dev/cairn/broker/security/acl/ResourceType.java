package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * The kinds of resource an ACL can name, with the numeric codes Kafka's ACL requests carry
 * (org.apache.kafka.common.resource.ResourceType). Kafka's UNKNOWN (0) stands for "a code this side does not know";
 * Cairn has no constant for it: {@link #fromCode} is empty instead, so an unknown code cannot slip into a stored
 * binding as if it were a real type.
 */
public enum ResourceType {
    /** Filters only: any resource type. */
    ANY(1),
    TOPIC(2),
    GROUP(3),
    /** The single cluster resource, named {@link AclBinding#CLUSTER_NAME}. */
    CLUSTER(4),
    TRANSACTIONAL_ID(5),
    DELEGATION_TOKEN(6),
    USER(7);

    private static final ResourceType[] VALUES = values();

    private final byte code;

    ResourceType(int code) {
        this.code = (byte) code;
    }

    /** Kafka's wire code. */
    public byte code() {
        return code;
    }

    /** The type with Kafka's wire code {@code code}, or empty for 0 (Kafka's UNKNOWN) and codes Kafka lacks. */
    public static Optional<ResourceType> fromCode(byte code) {
        for (ResourceType type : VALUES) {
            if (type.code == code) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
