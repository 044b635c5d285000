package dev.cairn.broker.api;

import dev.cairn.broker.cluster.AclStore;
import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.Authorizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The broker's ACL decisions, over the bindings in the latest metadata image. The {@link Authorizer} is rebuilt only
 * when the image's bindings change, so a check costs a lookup, not a decode. {@link #OPEN} is a broker without an
 * authorizer ({@code authorizer.class.name} empty): every check passes, as in Kafka.
 */
public final class AccessControl {
    public static final AccessControl OPEN = new AccessControl(false, Set.of(), false, () -> AclStore.EMPTY);

    private final boolean enabled;
    private final Set<String> superUsers;
    private final boolean allowIfNoAcl;
    private final Supplier<AclStore> store;
    private volatile Built built;

    private record Built(AclStore source, Authorizer authorizer) {
    }

    public AccessControl(boolean enabled, Set<String> superUsers, boolean allowIfNoAcl, Supplier<AclStore> store) {
        this.enabled = enabled;
        this.superUsers = Set.copyOf(superUsers);
        this.allowIfNoAcl = allowIfNoAcl;
        this.store = store;
    }

    /** Whether ACLs are checked at all (CreateAcls answers SECURITY_DISABLED otherwise). */
    public boolean enabled() {
        return enabled;
    }

    /** The decisions for the current bindings. */
    public Authorizer authorizer() {
        if (!enabled) {
            return Authorizer.ALLOW_ALL;
        }
        AclStore current = store.get();
        Built last = built;
        if (last == null || last.source() != current) {
            List<AclBinding> bindings = new ArrayList<>(current.size());
            for (byte[] encoded : current.encoded()) {
                bindings.add(AclBinding.decode(encoded));
            }
            last = new Built(current, new Authorizer(bindings, superUsers, allowIfNoAcl));
            built = last;
        }
        return last.authorizer();
    }

    /** The decoded bindings of the current image (DescribeAcls, DeleteAcls). */
    public List<AclBinding> bindings() {
        List<AclBinding> bindings = new ArrayList<>();
        for (byte[] encoded : store.get().encoded()) {
            bindings.add(AclBinding.decode(encoded));
        }
        return bindings;
    }
}
