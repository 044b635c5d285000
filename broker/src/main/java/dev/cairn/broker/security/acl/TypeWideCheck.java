package dev.cairn.broker.security.acl;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ACL half of Kafka's authorizeByResourceType: may the principal do the operation on at least one resource of
 * the type? Kafka asks it for an idempotent producer without IDEMPOTENT_WRITE on the cluster, which still may
 * produce if it can WRITE some topic. It holds when an ALLOW binding (for the operation itself or ALL; nothing is
 * implied here) is not dominated by a DENY: a wildcard ALLOW is never dominated, a LITERAL ALLOW is dominated by a
 * DENY of the same name, and any ALLOW by a PREFIXED DENY whose prefix starts its name. A DENY on the LITERAL "*"
 * (or, which Kafka never stores, on the PREFIXED "") dominates everything.
 */
final class TypeWideCheck {

    private final Set<String> deniedNames = new HashSet<>();
    private final List<String> deniedPrefixes = new ArrayList<>();
    private final List<String> allowedNames = new ArrayList<>();
    private final List<String> allowedPrefixes = new ArrayList<>();
    private boolean wildcardAllowed;
    private boolean everythingDenied;

    private TypeWideCheck() {
    }

    /** Whether {@code bindings}, all of the type, let the principal do the operation on some resource of it. */
    static boolean allows(List<AclBinding> bindings, String principal, String host, AclOperation operation) {
        TypeWideCheck check = new TypeWideCheck();
        for (AclBinding binding : bindings) {
            // Unlike authorize(), only the operation itself or ALL counts here, for ALLOW as for DENY.
            if (EntryMatch.names(binding, principal, host)
                    && EntryMatch.denyCovers(binding.operation(), operation)) {
                check.add(binding);
            }
        }
        return check.decide();
    }

    private void add(AclBinding binding) {
        boolean literal = binding.patternType() == PatternType.LITERAL;
        String name = binding.resourceName();
        boolean wildcard = literal ? AclBinding.WILDCARD_RESOURCE.equals(name) : name.isEmpty();
        if (binding.permission() == AclPermission.DENY) {
            if (wildcard) {
                everythingDenied = true;
            } else if (literal) {
                deniedNames.add(name);
            } else {
                deniedPrefixes.add(name);
            }
        } else if (binding.permission() == AclPermission.ALLOW) {
            if (wildcard) {
                wildcardAllowed = true;
            } else if (literal) {
                allowedNames.add(name);
            } else {
                allowedPrefixes.add(name);
            }
        }
    }

    private boolean decide() {
        if (everythingDenied) {
            return false;
        }
        if (wildcardAllowed) {
            return true;
        }
        for (String name : allowedNames) {
            if (!deniedNames.contains(name) && !underDeniedPrefix(name)) {
                return true;
            }
        }
        for (String prefix : allowedPrefixes) {
            if (!underDeniedPrefix(prefix)) {
                return true;
            }
        }
        return false;
    }

    private boolean underDeniedPrefix(String name) {
        for (String denied : deniedPrefixes) {
            if (name.startsWith(denied)) {
                return true;
            }
        }
        return false;
    }
}
