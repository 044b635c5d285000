package dev.cairn.broker.security.acl;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;

/** Short spellings of bindings for the tests, and their kafka-clients counterparts for cross-checks. */
final class Acls {

    static final String ALICE = "User:alice";
    static final String BOB = "User:bob";
    static final String HOST = "10.0.0.1";
    static final String OTHER_HOST = "10.0.0.2";

    private Acls() {
    }

    static AclBinding allow(ResourceType type, String name, PatternType pattern, String principal, AclOperation op) {
        return new AclBinding(type, name, pattern, principal, "*", op, AclPermission.ALLOW);
    }

    static AclBinding deny(ResourceType type, String name, PatternType pattern, String principal, AclOperation op) {
        return new AclBinding(type, name, pattern, principal, "*", op, AclPermission.DENY);
    }

    static AclBinding allowTopic(String name, String principal, AclOperation op) {
        return allow(ResourceType.TOPIC, name, PatternType.LITERAL, principal, op);
    }

    static AclBinding denyTopic(String name, String principal, AclOperation op) {
        return deny(ResourceType.TOPIC, name, PatternType.LITERAL, principal, op);
    }

    static AclBinding onHost(AclBinding binding, String host) {
        return new AclBinding(binding.resourceType(), binding.resourceName(), binding.patternType(),
                binding.principal(), host, binding.operation(), binding.permission());
    }

    static org.apache.kafka.common.acl.AclBinding toKafka(AclBinding b) {
        return new org.apache.kafka.common.acl.AclBinding(
                new ResourcePattern(kafka(b.resourceType()), b.resourceName(), kafka(b.patternType())),
                new AccessControlEntry(b.principal(), b.host(), kafka(b.operation()), kafka(b.permission())));
    }

    static AclBindingFilter toKafka(AclFilter f) {
        return new AclBindingFilter(
                new ResourcePatternFilter(kafka(f.resourceType()), f.resourceName(), kafka(f.patternType())),
                new AccessControlEntryFilter(f.principal(), f.host(), kafka(f.operation()), kafka(f.permission())));
    }

    /** Kafka's value for a Cairn one; null (a code Cairn does not know) is Kafka's UNKNOWN. */
    static org.apache.kafka.common.resource.ResourceType kafka(ResourceType type) {
        return org.apache.kafka.common.resource.ResourceType.fromCode(type == null ? 0 : type.code());
    }

    static org.apache.kafka.common.resource.PatternType kafka(PatternType type) {
        return org.apache.kafka.common.resource.PatternType.fromCode(type == null ? 0 : type.code());
    }

    static org.apache.kafka.common.acl.AclOperation kafka(AclOperation op) {
        return org.apache.kafka.common.acl.AclOperation.fromCode(op == null ? 0 : op.code());
    }

    static AclPermissionType kafka(AclPermission permission) {
        return AclPermissionType.fromCode(permission == null ? 0 : permission.code());
    }
}
