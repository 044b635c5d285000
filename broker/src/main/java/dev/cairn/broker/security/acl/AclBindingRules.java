package dev.cairn.broker.security.acl;

import java.util.Optional;

/**
 * What Kafka 4.4 refuses in CreateAcls, in the order Kafka checks it, with its wording, so a client sees the same
 * INVALID_REQUEST message from Cairn: first the broker's own checks (the CLUSTER resource's name, an empty name),
 * then the controller's (no filter-only or unknown enum values, a name, a principal with a type, a host pattern).
 * Cairn's own limits come last, so they show only for bindings Kafka would have stored.
 */
final class AclBindingRules {

    private AclBindingRules() {
    }

    static Optional<String> invalidReason(AclBinding binding) {
        Optional<String> kafka = kafkaReason(binding);
        return kafka.isPresent() ? kafka : cairnReason(binding);
    }

    private static Optional<String> kafkaReason(AclBinding b) {
        String name = b.resourceName();
        if (b.resourceType() == ResourceType.CLUSTER && !AclBinding.CLUSTER_NAME.equals(name)) {
            return Optional.of("The only valid name for the CLUSTER resource is " + AclBinding.CLUSTER_NAME);
        }
        if (name == null || name.isEmpty()) {
            return Optional.of("Invalid empty resource name");
        }
        if (b.resourceType() == null || b.resourceType() == ResourceType.ANY) {
            return Optional.of("Invalid resourceType " + nameOf(b.resourceType()));
        }
        if (b.patternType() != PatternType.LITERAL && b.patternType() != PatternType.PREFIXED) {
            return Optional.of("Invalid patternType " + nameOf(b.patternType()));
        }
        if (b.operation() == null || b.operation() == AclOperation.ANY) {
            return Optional.of("Invalid operation " + nameOf(b.operation()));
        }
        if (b.permission() != AclPermission.DENY && b.permission() != AclPermission.ALLOW) {
            return Optional.of("Invalid permissionType " + nameOf(b.permission()));
        }
        if (b.principal() == null || b.principal().indexOf(':') < 0) {
            return Optional.of("Could not parse principal from `" + b.principal() + "` (no colon is present"
                    + " separating the principal type from the principal name)");
        }
        if (b.host() == null || b.host().isEmpty()) {
            return Optional.of("Host pattern cannot be null or empty");
        }
        return Optional.empty();
    }

    /**
     * Kafka 4.4 also takes CIDR host patterns such as "10.0.0.0/8"; Cairn matches hosts exactly, so it refuses
     * them rather than store a binding that would never match. A PREFIXED CLUSTER binding would only ever
     * match its own name, so it is refused as a likely mistake. The length bound keeps a binding within
     * {@link AclBinding#ENCODED_BYTES_MAX}.
     */
    private static Optional<String> cairnReason(AclBinding b) {
        if (!AclBinding.WILDCARD_HOST.equals(b.host()) && b.host().contains("/")) {
            return Optional.of("CIDR-based ACL host patterns are not supported: " + b.host());
        }
        if (b.resourceType() == ResourceType.CLUSTER && b.patternType() != PatternType.LITERAL) {
            return Optional.of("The CLUSTER resource pattern must be LITERAL");
        }
        Optional<String> reason = AclStrings.storable("resource name", b.resourceName());
        if (reason.isEmpty()) {
            reason = AclStrings.storable("principal", b.principal());
        }
        return reason.isEmpty() ? AclStrings.storable("host", b.host()) : reason;
    }

    /** How Kafka prints the value: its enum constant's name, UNKNOWN for a code it does not know. */
    private static String nameOf(Enum<?> value) {
        return value == null ? "UNKNOWN" : value.name();
    }
}
