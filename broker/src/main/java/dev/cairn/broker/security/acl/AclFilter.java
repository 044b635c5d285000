package dev.cairn.broker.security.acl;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A DescribeAcls or DeleteAcls filter, with Kafka's matching rules (AclBindingFilter.matches): a null name,
 * principal or host and the ANY enum values match everything. The resource name is compared according to the
 * filter's pattern type: ANY, LITERAL and PREFIXED compare it exactly (LITERAL and PREFIXED also require that
 * pattern type); MATCH selects the bindings that would apply to a resource of that name: LITERAL bindings with the
 * name or "*", and PREFIXED bindings whose name starts it. Principal and host are compared exactly: a filter for
 * "User:alice" does not select a "User:*" binding, as in Kafka.
 *
 * <p>A null enum value stands for a code Cairn does not know (Kafka's UNKNOWN); it matches no binding, and
 * {@link #invalidReason()} reports it.
 *
 * @param resourceType the resource type, or ANY
 * @param resourceName the name, or null for any
 * @param patternType LITERAL, PREFIXED, ANY or MATCH
 * @param principal the exact principal, or null for any
 * @param host the exact host, or null for any
 * @param operation the exact operation, or ANY
 * @param permission ALLOW, DENY or ANY
 */
public record AclFilter(ResourceType resourceType, String resourceName, PatternType patternType, String principal,
        String host, AclOperation operation, AclPermission permission) {

    /** The filter that matches every binding. */
    public static final AclFilter ANY = new AclFilter(ResourceType.ANY, null, PatternType.ANY, null, null,
            AclOperation.ANY, AclPermission.ANY);

    /** Whether {@code binding} is one this filter selects. */
    public boolean matches(AclBinding binding) {
        if (resourceType == null || patternType == null || operation == null || permission == null) {
            return false;
        }
        return resourceMatches(binding)
                && (principal == null || principal.equals(binding.principal()))
                && (host == null || host.equals(binding.host()))
                && (operation == AclOperation.ANY || operation == binding.operation())
                && (permission == AclPermission.ANY || permission == binding.permission());
    }

    private boolean resourceMatches(AclBinding binding) {
        if (resourceType != ResourceType.ANY && resourceType != binding.resourceType()) {
            return false;
        }
        if (patternType != PatternType.ANY && patternType != PatternType.MATCH
                && patternType != binding.patternType()) {
            return false;
        }
        if (resourceName == null) {
            return true;
        }
        if (patternType != PatternType.MATCH || binding.patternType() == PatternType.MATCH) {
            return resourceName.equals(binding.resourceName());
        }
        if (binding.patternType() == PatternType.LITERAL) {
            return resourceName.equals(binding.resourceName())
                    || AclBinding.WILDCARD_RESOURCE.equals(binding.resourceName());
        }
        return binding.patternType() == PatternType.PREFIXED && binding.resourceName() != null
                && resourceName.startsWith(binding.resourceName());
    }

    /**
     * Empty when Kafka would serve the filter; otherwise why not. Kafka refuses a DescribeAcls or DeleteAcls
     * filter holding an UNKNOWN element (a code it does not know), which here is a null enum value.
     */
    public Optional<String> invalidReason() {
        List<String> unknown = new ArrayList<>();
        if (resourceType == null) {
            unknown.add("resourceType");
        }
        if (patternType == null) {
            unknown.add("patternType");
        }
        if (operation == null) {
            unknown.add("operation");
        }
        if (permission == null) {
            unknown.add("permissionType");
        }
        return unknown.isEmpty() ? Optional.empty()
                : Optional.of("Filter contains UNKNOWN elements: " + String.join(", ", unknown));
    }
}
