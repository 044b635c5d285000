package dev.cairn.broker.config;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether ACLs are checked, and who is exempt. {@code authorizer.class.name} takes Kafka's class names so that an
 * existing server.properties carries over: KRaft's StandardAuthorizer, or ZooKeeper-era AclAuthorizer; both mean
 * Cairn's own ACL checks. Any other class is refused at start rather than silently ignored.
 */
public record AuthorizerSettings(boolean enabled, Set<String> superUsers, boolean allowEveryoneIfNoAclFound) {

    /** Kafka's authorizer class names that turn ACLs on. */
    public static final List<String> KAFKA_AUTHORIZERS = List.of(
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer", "kafka.security.authorizer.AclAuthorizer");

    public static AuthorizerSettings of(BrokerConfig config) {
        String className = config.text(SecurityKeys.AUTHORIZER_CLASS_NAME);
        if (!className.isEmpty() && !KAFKA_AUTHORIZERS.contains(className)) {
            throw new ConfigException("authorizer.class.name=" + className + " is not served; use one of "
                    + KAFKA_AUTHORIZERS + " (Cairn's ACL checks) or leave it empty (no ACLs)");
        }
        Set<String> superUsers = new LinkedHashSet<>();
        for (String principal : config.text(SecurityKeys.SUPER_USERS).split(";")) {
            String trimmed = principal.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (trimmed.indexOf(':') <= 0) {
                throw new ConfigException("super.users entry " + trimmed + " is not TYPE:NAME (e.g. User:admin)");
            }
            superUsers.add(trimmed);
        }
        return new AuthorizerSettings(!className.isEmpty(), Set.copyOf(superUsers),
                SecurityKeys.ALLOW_EVERYONE_IF_NO_ACL_FOUND.parse(
                        config.text(SecurityKeys.ALLOW_EVERYONE_IF_NO_ACL_FOUND)));
    }
}
