package dev.cairn.broker.security.acl;

import static dev.cairn.broker.security.acl.Acls.ALICE;
import static dev.cairn.broker.security.acl.Acls.allow;
import static dev.cairn.broker.security.acl.Acls.allowTopic;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link AclBinding#invalidReason()}: what may be stored, and Kafka's wording for what may not. */
class AclBindingValidationTest {

    private static AclBinding binding(ResourceType type, String name, PatternType pattern, String principal,
            String host, AclOperation op, AclPermission permission) {
        return new AclBinding(type, name, pattern, principal, host, op, permission);
    }

    private static void invalid(String reason, AclBinding binding) {
        assertEquals(Optional.of(reason), binding.invalidReason(), binding.toString());
    }

    private static AclBinding withHost(String host) {
        return binding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE, host, AclOperation.READ,
                AclPermission.ALLOW);
    }

    private static AclBinding withPrincipal(String principal) {
        return allowTopic("t", principal, AclOperation.READ);
    }

    @Test
    void storableBindings() {
        for (AclBinding binding : List.of(
                allowTopic("orders", ALICE, AclOperation.READ),
                allowTopic("*", "User:*", AclOperation.ALL),
                allow(ResourceType.TOPIC, "ord", PatternType.PREFIXED, "Group:ops", AclOperation.WRITE),
                allow(ResourceType.GROUP, "g", PatternType.LITERAL, "User:", AclOperation.DESCRIBE),
                allow(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME, PatternType.LITERAL, ":x",
                        AclOperation.CLUSTER_ACTION),
                allow(ResourceType.TRANSACTIONAL_ID, "tx", PatternType.LITERAL, ALICE,
                        AclOperation.TWO_PHASE_COMMIT),
                allow(ResourceType.DELEGATION_TOKEN, "tok", PatternType.LITERAL, ALICE, AclOperation.DESCRIBE),
                allow(ResourceType.USER, "bob", PatternType.LITERAL, ALICE, AclOperation.CREATE_TOKENS),
                withHost("10.0.0.1"), withHost("::1"), withHost("*"),
                allowTopic("x".repeat(AclBinding.STRING_BYTES_MAX), ALICE, AclOperation.READ))) {
            assertEquals(Optional.empty(), binding.invalidReason(), binding.toString());
        }
    }

    @Test
    void clusterResourceIsOnlyKafkaCluster() {
        invalid("The only valid name for the CLUSTER resource is kafka-cluster",
                allow(ResourceType.CLUSTER, "my-cluster", PatternType.LITERAL, ALICE, AclOperation.ALTER));
        invalid("The only valid name for the CLUSTER resource is kafka-cluster",
                allow(ResourceType.CLUSTER, "", PatternType.LITERAL, ALICE, AclOperation.ALTER));
        invalid("The CLUSTER resource pattern must be LITERAL",
                allow(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME, PatternType.PREFIXED, ALICE,
                        AclOperation.ALTER));
    }

    @Test
    void resourceNameIsNeeded() {
        invalid("Invalid empty resource name", allowTopic("", ALICE, AclOperation.READ));
        invalid("Invalid empty resource name", allowTopic(null, ALICE, AclOperation.READ));
        invalid("Invalid empty resource name", binding(ResourceType.ANY, "", PatternType.ANY, ALICE, "*",
                AclOperation.ANY, AclPermission.ANY));
    }

    @Test
    void filterOnlyAndUnknownValuesAreRefusedInKafkasOrder() {
        invalid("Invalid resourceType ANY", binding(ResourceType.ANY, "t", PatternType.ANY, ALICE, "*",
                AclOperation.ANY, AclPermission.ANY));
        invalid("Invalid resourceType UNKNOWN", binding(null, "t", PatternType.LITERAL, ALICE, "*",
                AclOperation.READ, AclPermission.ALLOW));
        invalid("Invalid patternType MATCH", binding(ResourceType.TOPIC, "t", PatternType.MATCH, ALICE, "*",
                AclOperation.ANY, AclPermission.ANY));
        invalid("Invalid patternType ANY", binding(ResourceType.TOPIC, "t", PatternType.ANY, ALICE, "*",
                AclOperation.READ, AclPermission.ALLOW));
        invalid("Invalid patternType UNKNOWN", binding(ResourceType.TOPIC, "t", null, ALICE, "*",
                AclOperation.READ, AclPermission.ALLOW));
        invalid("Invalid operation ANY", binding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE, "*",
                AclOperation.ANY, AclPermission.ANY));
        invalid("Invalid operation UNKNOWN", binding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE, "*",
                null, AclPermission.ALLOW));
        invalid("Invalid permissionType ANY", binding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE, "*",
                AclOperation.READ, AclPermission.ANY));
        invalid("Invalid permissionType UNKNOWN", binding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE,
                "*", AclOperation.READ, null));
    }

    @Test
    void principalNeedsATypeSeparator() {
        invalid("Could not parse principal from `alice` (no colon is present separating the principal type from"
                + " the principal name)", withPrincipal("alice"));
        invalid("Could not parse principal from `` (no colon is present separating the principal type from"
                + " the principal name)", withPrincipal(""));
        invalid("Could not parse principal from `null` (no colon is present separating the principal type from"
                + " the principal name)", withPrincipal(null));
    }

    @Test
    void hostIsNeededAndExact() {
        invalid("Host pattern cannot be null or empty", withHost(""));
        invalid("Host pattern cannot be null or empty", withHost(null));
        invalid("CIDR-based ACL host patterns are not supported: 10.0.0.0/8", withHost("10.0.0.0/8"));
    }

    @Test
    void stringsMustBeStorable() {
        String tooLong = "x".repeat(AclBinding.STRING_BYTES_MAX + 1);
        invalid("Invalid resource name: 1025 UTF-8 bytes, more than the 1024 Cairn stores",
                allowTopic(tooLong, ALICE, AclOperation.READ));
        invalid("Invalid principal: 1025 UTF-8 bytes, more than the 1024 Cairn stores",
                withPrincipal("User:" + tooLong.substring(5)));
        invalid("Invalid host: 1025 UTF-8 bytes, more than the 1024 Cairn stores", withHost(tooLong));
        invalid("Invalid resource name: 1025 UTF-8 bytes, more than the 1024 Cairn stores",
                allowTopic("é" + "x".repeat(AclBinding.STRING_BYTES_MAX - 1), ALICE, AclOperation.READ));
        invalid("Invalid resource name: not well-formed Unicode", allowTopic("t\ud800", ALICE, AclOperation.READ));
    }
}
