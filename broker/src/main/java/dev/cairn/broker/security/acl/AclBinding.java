package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * One ACL as Kafka states it: a resource pattern (type, name, LITERAL or PREFIXED) and an entry (principal, host,
 * operation, ALLOW or DENY). The fields are Kafka's, one for one, so CreateAcls, DescribeAcls and DeleteAcls map
 * onto a binding without translation, and Kafka's matching rules apply unchanged.
 *
 * <p>The record takes any values, nulls included (a request may carry a code Cairn does not know, which decodes
 * to no enum value); {@link #invalidReason()} says whether it may be stored, and {@link #encode()} needs every
 * field present.
 *
 * @param resourceType the kind of resource; not {@link ResourceType#ANY} in a stored binding
 * @param resourceName the exact name, "*" for every resource of the type (LITERAL), or a name prefix (PREFIXED)
 * @param patternType how the name is read: LITERAL or PREFIXED in a stored binding
 * @param principal "Type:name", e.g. "User:alice"; {@link #WILDCARD_PRINCIPAL} for every user
 * @param host the client's IP address as the broker prints it, or {@link #WILDCARD_HOST} for any host
 * @param operation the operation granted or refused; {@link AclOperation#ALL} for every operation
 * @param permission ALLOW or DENY
 */
public record AclBinding(ResourceType resourceType, String resourceName, PatternType patternType, String principal,
        String host, AclOperation operation, AclPermission permission) {

    /** The name of the single CLUSTER resource, as Kafka names it. */
    public static final String CLUSTER_NAME = "kafka-cluster";

    /** A LITERAL resource name that stands for every resource of its type. */
    public static final String WILDCARD_RESOURCE = "*";

    /** The principal that stands for every user. */
    public static final String WILDCARD_PRINCIPAL = "User:*";

    /** The host that stands for every host. */
    public static final String WILDCARD_HOST = "*";

    /**
     * The most UTF-8 bytes of each string field (resource name, principal, host). Kafka has no such bound; Cairn
     * has one so a client cannot make the metadata group replicate and keep arbitrarily large bindings. Topic
     * names stop at 249 characters, and principals and hosts are far shorter in practice.
     */
    public static final int STRING_BYTES_MAX = 1024;

    /** The most bytes {@link #encode()} produces: the version, four codes, and three length-prefixed strings. */
    public static final int ENCODED_BYTES_MAX = 1 + 4 + 3 * (2 + STRING_BYTES_MAX);

    /**
     * Empty when the binding may be stored; otherwise the reason, worded as Kafka's CreateAcls error message
     * (Kafka answers INVALID_REQUEST for these). Kafka's checks come first, in Kafka's order: a CLUSTER resource
     * named other than {@link #CLUSTER_NAME}; an empty name; ANY, MATCH or unknown (null) enum values; a
     * principal without the ':' between type and name; an empty host. Then Cairn's: no CIDR host patterns, CLUSTER
     * only LITERAL, and each string at most {@link #STRING_BYTES_MAX} bytes of well-formed UTF-8.
     */
    public Optional<String> invalidReason() {
        return AclBindingRules.invalidReason(this);
    }

    /**
     * The compact versioned binary form (version byte first) replicated in the metadata group. Equal bindings
     * encode to equal bytes, so a store of encoded bindings keeps each binding once.
     *
     * @throws NullPointerException if a field is null
     * @throws IllegalArgumentException if a string is longer than {@link #STRING_BYTES_MAX} UTF-8 bytes or holds
     *     an unpaired surrogate
     */
    public byte[] encode() {
        return AclBindingCodec.encode(this);
    }

    /**
     * Reads {@link #encode()}'s form. Only the structure is checked, not {@link #invalidReason()}.
     *
     * @throws IllegalArgumentException if the input is truncated, longer than {@link #ENCODED_BYTES_MAX} or than
     *     its fields, of an unknown version, holds an unknown code, a string over {@link #STRING_BYTES_MAX} bytes
     *     or malformed UTF-8
     */
    public static AclBinding decode(byte[] bytes) {
        return AclBindingCodec.decode(bytes);
    }

    /** The filter that matches exactly this binding (and no other valid one), as Kafka's toFilter gives. */
    public AclFilter toFilter() {
        return new AclFilter(resourceType, resourceName, patternType, principal, host, operation, permission);
    }
}
