package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclFilter;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.AclPermission;
import dev.cairn.broker.security.acl.PatternType;
import dev.cairn.broker.security.acl.ResourceType;
import java.util.Optional;

/**
 * The wire form of ACL bindings and filters (CreateAcls, DescribeAcls, DeleteAcls) to Cairn's ACL types. An unknown
 * enum code leaves the result empty; the handler answers INVALID_REQUEST, as Kafka does for UNKNOWN values.
 */
final class AclMessages {
    private AclMessages() {
    }

    /** The four enum fields of a binding or filter, each a code Cairn knows. */
    private record Codes(ResourceType type, PatternType pattern, AclOperation operation, AclPermission permission) {
    }

    private static Optional<Codes> codes(byte type, byte pattern, byte operation, byte permission) {
        Optional<ResourceType> resourceType = ResourceType.fromCode(type);
        Optional<PatternType> patternType = PatternType.fromCode(pattern);
        Optional<AclOperation> op = AclOperation.fromCode(operation);
        Optional<AclPermission> perm = AclPermission.fromCode(permission);
        if (resourceType.isEmpty() || patternType.isEmpty() || op.isEmpty() || perm.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Codes(resourceType.get(), patternType.get(), op.get(), perm.get()));
    }

    static Optional<AclBinding> binding(byte type, String name, byte pattern, String principal, String host,
            byte operation, byte permission) {
        return codes(type, pattern, operation, permission).map(c -> new AclBinding(c.type(), name, c.pattern(),
                principal, host, c.operation(), c.permission()));
    }

    static Optional<AclFilter> filter(byte type, String name, byte pattern, String principal, String host,
            byte operation, byte permission) {
        return codes(type, pattern, operation, permission).map(c -> new AclFilter(c.type(), name, c.pattern(),
                principal, host, c.operation(), c.permission()));
    }
}
