package dev.cairn.broker.security.acl;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Kafka's authorization decision (its StandardAuthorizer's rules) over an immutable set of bindings. The broker
 * builds a new one whenever the replicated bindings or the settings change, so a decision never sees a half-applied
 * update and needs no lock. Thread-safe, immutable.
 *
 * <p>Principals are Kafka's "Type:name" strings ("User:alice"); hosts are the client's address as the broker
 * prints it. Super users are given in the same form, as Kafka's {@code super.users} lists them.
 */
public final class Authorizer {

    /** No authorizer configured: every check passes (no bindings, and everyone allowed where none is found). */
    public static final Authorizer ALLOW_ALL = new Authorizer(List.of(), Set.of(), true);

    /**
     * The resource name Kafka's authorizeByResourceType first authorizes, so that super users, and everyone where
     * no binding applies to it and {@code allow.everyone.if.no.acl.found} is set, pass without looking further.
     * Any name would do for those two; Kafka's own is kept so that the PREFIXED bindings which happen to cover it
     * weigh the same here as there.
     */
    static final String PROBE_NAME = "hardcode";

    private final List<AclBinding> bindings;
    private final Map<ResourceType, ResourceIndex> byType;
    private final Set<String> superUsers;
    private final boolean allowEveryoneIfNoAclFound;

    /**
     * @param bindings the ACLs as stored; one neither LITERAL nor PREFIXED, or neither ALLOW nor DENY (which
     *     {@link AclBinding#invalidReason()} refuses), is ignored, as if absent
     * @param superUsers principals allowed everything, e.g. "User:admin"
     * @param allowEveryoneIfNoAclFound Kafka's {@code allow.everyone.if.no.acl.found}: whether a resource no binding
     *     applies to is open to everyone (true) or to super users only (false)
     */
    public Authorizer(Collection<AclBinding> bindings, Set<String> superUsers, boolean allowEveryoneIfNoAclFound) {
        this.bindings = List.copyOf(bindings);
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
        Map<ResourceType, List<AclBinding>> grouped = new EnumMap<>(ResourceType.class);
        for (AclBinding binding : this.bindings) {
            Objects.requireNonNull(binding.resourceType(), "resourceType");
            Objects.requireNonNull(binding.resourceName(), "resourceName");
            Objects.requireNonNull(binding.principal(), "principal");
            Objects.requireNonNull(binding.host(), "host");
            Objects.requireNonNull(binding.operation(), "operation");
            if (binding.permission() != AclPermission.ALLOW && binding.permission() != AclPermission.DENY) {
                continue;
            }
            grouped.computeIfAbsent(binding.resourceType(), type -> new ArrayList<>()).add(binding);
        }
        Map<ResourceType, ResourceIndex> indexes = new EnumMap<>(ResourceType.class);
        for (ResourceType type : ResourceType.values()) {
            indexes.put(type, new ResourceIndex(grouped.getOrDefault(type, List.of())));
        }
        this.byType = indexes;
    }

    /**
     * Kafka's rules: super users always; any matching DENY wins; else a matching ALLOW (ALL matches every
     * operation; READ, WRITE, DELETE or ALTER allowed implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS);
     * a binding matches when its principal is the principal or "User:*", its host is the host or "*", and its
     * resource pattern matches (LITERAL exact name, LITERAL "*", PREFIXED prefix of the name); when no binding at
     * all exists for the resource (any principal/operation), allowEveryoneIfNoAclFound decides.
     *
     * @throws IllegalArgumentException if {@code operation} or {@code type} is ANY, which name no action
     */
    public boolean authorize(String principal, String host, AclOperation operation, ResourceType type, String name) {
        checkAction(operation, type);
        Objects.requireNonNull(name, "name");
        if (isSuperUser(principal)) {
            return true;
        }
        List<AclBinding> applicable = byType.get(type).matching(name);
        boolean allowed = false;
        for (AclBinding binding : applicable) {
            if (!EntryMatch.names(binding, principal, host)) {
                continue;
            }
            if (binding.permission() == AclPermission.DENY && EntryMatch.denyCovers(binding.operation(), operation)) {
                return false;
            }
            allowed |= binding.permission() == AclPermission.ALLOW
                    && EntryMatch.allowCovers(binding.operation(), operation);
        }
        return allowed || applicable.isEmpty() && allowEveryoneIfNoAclFound;
    }

    /**
     * Kafka's authorizeByResourceType: whether the principal may do the operation on at least one resource of the
     * type (used for an idempotent producer, which needs WRITE on some topic or IDEMPOTENT_WRITE on the cluster).
     * As in Kafka: it passes if {@link #authorize} passes for a resource named {@link #PROBE_NAME} (so for super
     * users, and under allowEveryoneIfNoAclFound when no binding covers that name); otherwise if some ALLOW
     * binding of the type for this principal, host and operation (or ALL) is not dominated by a DENY (see
     * {@link TypeWideCheck}). A DENY on the LITERAL "*" refuses outright.
     *
     * @throws IllegalArgumentException if {@code operation} or {@code type} is ANY
     */
    public boolean authorizeAny(String principal, String host, AclOperation operation, ResourceType type) {
        if (authorize(principal, host, operation, type, PROBE_NAME)) {
            return true;
        }
        return TypeWideCheck.allows(byType.get(type).all(), principal, host, operation);
    }

    /**
     * Kafka's authorized-operations bit field for Metadata, DescribeCluster and DescribeGroups: bit
     * {@code 1 << op.code()} set for each operation in {@code candidates} that {@link #authorize} allows.
     */
    public int authorizedOperations(String principal, String host, ResourceType type, String name,
            Set<AclOperation> candidates) {
        int field = 0;
        for (AclOperation operation : candidates) {
            if (authorize(principal, host, operation, type, name)) {
                field |= 1 << operation.code();
            }
        }
        return field;
    }

    /** Whether {@code principal} ("Type:name") is one of the configured super users. */
    public boolean isSuperUser(String principal) {
        return superUsers.contains(principal);
    }

    /** The bindings decided over, as given. */
    public List<AclBinding> bindings() {
        return bindings;
    }

    private static void checkAction(AclOperation operation, ResourceType type) {
        if (Objects.requireNonNull(operation, "operation") == AclOperation.ANY) {
            throw new IllegalArgumentException("ANY is a filter, not an operation to authorize");
        }
        if (Objects.requireNonNull(type, "type") == ResourceType.ANY) {
            throw new IllegalArgumentException("ANY is a filter, not a resource type to authorize");
        }
    }
}
