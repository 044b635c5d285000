package dev.cairn.broker.security.acl;

import java.util.EnumSet;
import java.util.Set;

/**
 * Kafka's rules for whether a binding's entry (principal, host, operation) speaks to a request, apart from the
 * resource. Kept in one place because {@link Authorizer#authorize} and {@link Authorizer#authorizeAny} share them.
 */
final class EntryMatch {

    /** Allowing any of these lets a client see the resource exists, so Kafka lets them imply DESCRIBE. */
    private static final Set<AclOperation> IMPLY_DESCRIBE = EnumSet.of(AclOperation.READ, AclOperation.WRITE,
            AclOperation.DELETE, AclOperation.ALTER);

    private EntryMatch() {
    }

    /**
     * Whether the binding names this principal or every user ("User:*"), and this host or any ("*"). The
     * principal is compared as a string, as Kafka compares "Type:name" principals after splitting at the first ':'.
     */
    static boolean names(AclBinding binding, String principal, String host) {
        return (binding.principal().equals(principal) || AclBinding.WILDCARD_PRINCIPAL.equals(binding.principal()))
                && (AclBinding.WILDCARD_HOST.equals(binding.host()) || binding.host().equals(host));
    }

    /**
     * Whether an ALLOW binding for {@code granted} allows {@code requested}: ALL allows everything; READ, WRITE,
     * DELETE and ALTER also allow DESCRIBE; ALTER_CONFIGS also allows DESCRIBE_CONFIGS.
     */
    static boolean allowCovers(AclOperation granted, AclOperation requested) {
        return granted == AclOperation.ALL || granted == requested
                || requested == AclOperation.DESCRIBE && IMPLY_DESCRIBE.contains(granted)
                || requested == AclOperation.DESCRIBE_CONFIGS && granted == AclOperation.ALTER_CONFIGS;
    }

    /**
     * Whether a DENY binding for {@code refused} refuses {@code requested}: ALL refuses everything, otherwise only
     * the same operation. Nothing is implied, so denying READ does not deny DESCRIBE, as in Kafka.
     */
    static boolean denyCovers(AclOperation refused, AclOperation requested) {
        return refused == AclOperation.ALL || refused == requested;
    }
}
