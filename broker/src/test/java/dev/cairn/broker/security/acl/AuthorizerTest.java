package dev.cairn.broker.security.acl;

import static dev.cairn.broker.security.acl.Acls.ALICE;
import static dev.cairn.broker.security.acl.Acls.BOB;
import static dev.cairn.broker.security.acl.Acls.HOST;
import static dev.cairn.broker.security.acl.Acls.OTHER_HOST;
import static dev.cairn.broker.security.acl.Acls.allow;
import static dev.cairn.broker.security.acl.Acls.allowTopic;
import static dev.cairn.broker.security.acl.Acls.deny;
import static dev.cairn.broker.security.acl.Acls.denyTopic;
import static dev.cairn.broker.security.acl.Acls.onHost;
import static dev.cairn.broker.security.acl.AclOperation.ALL;
import static dev.cairn.broker.security.acl.AclOperation.ALTER;
import static dev.cairn.broker.security.acl.AclOperation.ALTER_CONFIGS;
import static dev.cairn.broker.security.acl.AclOperation.CLUSTER_ACTION;
import static dev.cairn.broker.security.acl.AclOperation.CREATE;
import static dev.cairn.broker.security.acl.AclOperation.DELETE;
import static dev.cairn.broker.security.acl.AclOperation.DESCRIBE;
import static dev.cairn.broker.security.acl.AclOperation.DESCRIBE_CONFIGS;
import static dev.cairn.broker.security.acl.AclOperation.READ;
import static dev.cairn.broker.security.acl.AclOperation.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link Authorizer#authorize} and {@link Authorizer#authorizedOperations} on hand-picked cases of Kafka's rules. */
class AuthorizerTest {

    private static Authorizer acls(AclBinding... bindings) {
        return new Authorizer(List.of(bindings), Set.of(), false);
    }

    private static boolean topic(Authorizer authorizer, String principal, AclOperation op, String name) {
        return authorizer.authorize(principal, HOST, op, ResourceType.TOPIC, name);
    }

    @Test
    void literalBindingCoversOnlyItsName() {
        Authorizer authorizer = acls(allowTopic("orders", ALICE, READ));
        assertTrue(topic(authorizer, ALICE, READ, "orders"));
        assertFalse(topic(authorizer, ALICE, READ, "orders2"));
        assertFalse(topic(authorizer, ALICE, READ, "order"));
        assertFalse(topic(authorizer, ALICE, WRITE, "orders"));
        assertFalse(topic(authorizer, BOB, READ, "orders"));
        assertFalse(authorizer.authorize(ALICE, HOST, READ, ResourceType.GROUP, "orders"), "another type");
    }

    @Test
    void prefixedBindingCoversNamesStartingWithIt() {
        Authorizer authorizer = acls(allow(ResourceType.TOPIC, "ord", PatternType.PREFIXED, ALICE, READ));
        assertTrue(topic(authorizer, ALICE, READ, "ord"));
        assertTrue(topic(authorizer, ALICE, READ, "orders"));
        assertFalse(topic(authorizer, ALICE, READ, "or"));
        assertFalse(topic(authorizer, ALICE, READ, "xord"));
    }

    @Test
    void literalWildcardCoversEveryNameOfItsType() {
        Authorizer authorizer = acls(allowTopic("*", ALICE, WRITE));
        assertTrue(topic(authorizer, ALICE, WRITE, "anything"));
        assertTrue(topic(authorizer, ALICE, WRITE, "*"));
        assertFalse(authorizer.authorize(ALICE, HOST, WRITE, ResourceType.GROUP, "anything"));
        Authorizer prefixedStar = acls(allow(ResourceType.TOPIC, "*", PatternType.PREFIXED, ALICE, WRITE));
        assertFalse(topic(prefixedStar, ALICE, WRITE, "anything"), "a PREFIXED \"*\" is just a prefix");
        assertTrue(topic(prefixedStar, ALICE, WRITE, "*anything"));
    }

    @Test
    void wildcardPrincipalCoversEveryUser() {
        Authorizer authorizer = acls(allowTopic("t", "User:*", READ));
        assertTrue(topic(authorizer, ALICE, READ, "t"));
        assertTrue(topic(authorizer, BOB, READ, "t"));
        assertTrue(topic(authorizer, "User:ANONYMOUS", READ, "t"));
        Authorizer group = acls(allowTopic("t", "Group:ops", READ));
        assertTrue(topic(group, "Group:ops", READ, "t"));
        assertFalse(topic(group, "User:ops", READ, "t"), "principal types differ");
    }

    @Test
    void hostMustMatchUnlessWildcard() {
        Authorizer authorizer = acls(onHost(allowTopic("t", ALICE, READ), HOST));
        assertTrue(authorizer.authorize(ALICE, HOST, READ, ResourceType.TOPIC, "t"));
        assertFalse(authorizer.authorize(ALICE, OTHER_HOST, READ, ResourceType.TOPIC, "t"));
        Authorizer anyHost = acls(allowTopic("t", ALICE, READ));
        assertTrue(anyHost.authorize(ALICE, OTHER_HOST, READ, ResourceType.TOPIC, "t"));
        Authorizer deniedOnOneHost = acls(allowTopic("t", ALICE, READ), onHost(denyTopic("t", ALICE, READ), HOST));
        assertFalse(deniedOnOneHost.authorize(ALICE, HOST, READ, ResourceType.TOPIC, "t"));
        assertTrue(deniedOnOneHost.authorize(ALICE, OTHER_HOST, READ, ResourceType.TOPIC, "t"));
    }

    @Test
    void denyBeatsAllow() {
        Authorizer authorizer = acls(allowTopic("t", ALICE, ALL), denyTopic("t", ALICE, WRITE));
        assertFalse(topic(authorizer, ALICE, WRITE, "t"));
        assertTrue(topic(authorizer, ALICE, READ, "t"));
        Authorizer wildcardDeny = acls(allowTopic("t", ALICE, READ), denyTopic("*", "User:*", READ));
        assertFalse(topic(wildcardDeny, ALICE, READ, "t"));
        Authorizer prefixedDeny = acls(allowTopic("secret-1", ALICE, READ),
                deny(ResourceType.TOPIC, "secret", PatternType.PREFIXED, ALICE, ALL));
        assertFalse(topic(prefixedDeny, ALICE, READ, "secret-1"));
        assertFalse(topic(prefixedDeny, ALICE, DESCRIBE, "secret-1"));
        Authorizer othersDeny = acls(allowTopic("t", ALICE, READ), denyTopic("t", BOB, READ));
        assertTrue(topic(othersDeny, ALICE, READ, "t"), "bob's DENY is not alice's");
    }

    @Test
    void readWriteDeleteAlterImplyDescribe() {
        for (AclOperation op : List.of(READ, WRITE, DELETE, ALTER, DESCRIBE, ALL)) {
            assertTrue(topic(acls(allowTopic("t", ALICE, op)), ALICE, DESCRIBE, "t"), op.name());
        }
        for (AclOperation op : List.of(CREATE, ALTER_CONFIGS, DESCRIBE_CONFIGS, CLUSTER_ACTION)) {
            assertFalse(topic(acls(allowTopic("t", ALICE, op)), ALICE, DESCRIBE, "t"), op.name());
        }
        assertFalse(topic(acls(allowTopic("t", ALICE, DESCRIBE)), ALICE, READ, "t"), "no implication backwards");
    }

    @Test
    void alterConfigsImpliesDescribeConfigs() {
        assertTrue(topic(acls(allowTopic("t", ALICE, ALTER_CONFIGS)), ALICE, DESCRIBE_CONFIGS, "t"));
        assertFalse(topic(acls(allowTopic("t", ALICE, DESCRIBE_CONFIGS)), ALICE, ALTER_CONFIGS, "t"));
        assertFalse(topic(acls(allowTopic("t", ALICE, ALTER)), ALICE, DESCRIBE_CONFIGS, "t"));
    }

    @Test
    void denyImpliesNothing() {
        Authorizer authorizer = acls(allowTopic("t", ALICE, DESCRIBE), denyTopic("t", ALICE, READ));
        assertTrue(topic(authorizer, ALICE, DESCRIBE, "t"), "denying READ does not deny DESCRIBE");
        Authorizer configs = acls(allowTopic("t", ALICE, DESCRIBE_CONFIGS), denyTopic("t", ALICE, ALTER_CONFIGS));
        assertTrue(topic(configs, ALICE, DESCRIBE_CONFIGS, "t"));
        Authorizer all = acls(allowTopic("t", ALICE, READ), denyTopic("t", ALICE, ALL));
        assertFalse(topic(all, ALICE, READ, "t"));
        assertFalse(topic(all, ALICE, DESCRIBE, "t"));
    }

    @Test
    void allGrantsEveryOperation() {
        Authorizer authorizer = acls(allow(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME, PatternType.LITERAL,
                ALICE, ALL));
        for (AclOperation op : EnumSet.complementOf(EnumSet.of(AclOperation.ANY))) {
            assertTrue(authorizer.authorize(ALICE, HOST, op, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME),
                    op.name());
        }
    }

    @Test
    void superUsersPassEverything() {
        Authorizer authorizer = new Authorizer(List.of(denyTopic("t", "User:admin", ALL), denyTopic("*", "User:*",
                ALL)), Set.of("User:admin"), false);
        assertTrue(authorizer.isSuperUser("User:admin"));
        assertFalse(authorizer.isSuperUser(ALICE));
        assertTrue(topic(authorizer, "User:admin", WRITE, "t"));
        assertTrue(authorizer.authorize("User:admin", HOST, CLUSTER_ACTION, ResourceType.CLUSTER,
                AclBinding.CLUSTER_NAME));
        assertFalse(topic(authorizer, ALICE, WRITE, "t"));
        assertFalse(topic(authorizer, "User:admin2", WRITE, "t"));
    }

    @Test
    void noBindingOnTheResourceFollowsAllowEveryone() {
        List<AclBinding> bobOnly = List.of(allowTopic("bobs", BOB, READ));
        Authorizer open = new Authorizer(bobOnly, Set.of(), true);
        Authorizer closed = new Authorizer(bobOnly, Set.of(), false);
        assertTrue(topic(open, ALICE, READ, "other"), "no binding covers it: open to everyone");
        assertFalse(topic(closed, ALICE, READ, "other"));
        assertFalse(topic(open, ALICE, READ, "bobs"), "a binding for anyone on it closes it to others");
        assertTrue(topic(open, BOB, WRITE, "other"));
        assertFalse(topic(open, BOB, WRITE, "bobs"), "a binding for another operation closes it too");
        assertTrue(new Authorizer(List.of(), Set.of(), true).authorize(ALICE, HOST, ALTER, ResourceType.CLUSTER,
                AclBinding.CLUSTER_NAME));
        assertFalse(new Authorizer(List.of(), Set.of(), false).authorize(ALICE, HOST, ALTER, ResourceType.CLUSTER,
                AclBinding.CLUSTER_NAME));
    }

    @Test
    void coveringPrefixOrWildcardCountsAsABindingOnTheResource() {
        Authorizer prefixed = new Authorizer(List.of(allow(ResourceType.TOPIC, "bo", PatternType.PREFIXED, BOB,
                READ)), Set.of(), true);
        assertFalse(topic(prefixed, ALICE, READ, "bobs"));
        assertTrue(topic(prefixed, ALICE, READ, "b"));
        Authorizer hostOnly = new Authorizer(List.of(onHost(allowTopic("t", ALICE, READ), OTHER_HOST)), Set.of(),
                true);
        assertFalse(topic(hostOnly, ALICE, READ, "t"), "a binding for another host still exists on the resource");
        Authorizer wildcard = new Authorizer(List.of(allowTopic("*", BOB, READ)), Set.of(), true);
        assertFalse(topic(wildcard, ALICE, READ, "t"));
        assertTrue(wildcard.authorize(ALICE, HOST, READ, ResourceType.GROUP, "g"), "other types stay open");
    }

    @Test
    void allowAllPassesEverything() {
        assertTrue(Authorizer.ALLOW_ALL.authorize(ALICE, HOST, WRITE, ResourceType.TOPIC, "t"));
        assertTrue(Authorizer.ALLOW_ALL.authorize(ALICE, HOST, CLUSTER_ACTION, ResourceType.CLUSTER,
                AclBinding.CLUSTER_NAME));
        assertTrue(Authorizer.ALLOW_ALL.authorizeAny(ALICE, HOST, WRITE, ResourceType.TOPIC));
        assertEquals((1 << 3) | (1 << 4), Authorizer.ALLOW_ALL.authorizedOperations(ALICE, HOST, ResourceType.TOPIC,
                "t", EnumSet.of(READ, WRITE)));
        assertFalse(Authorizer.ALLOW_ALL.isSuperUser(ALICE));
        assertTrue(Authorizer.ALLOW_ALL.bindings().isEmpty());
    }

    @Test
    void authorizedOperationsSetsTheBitOfEachAllowedCandidate() {
        Set<AclOperation> topicOps = EnumSet.of(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS,
                ALTER_CONFIGS);
        Authorizer authorizer = acls(allowTopic("t", ALICE, READ), allowTopic("t", ALICE, ALTER_CONFIGS));
        assertEquals((1 << 3) | (1 << 8) | (1 << 10) | (1 << 11),
                authorizer.authorizedOperations(ALICE, HOST, ResourceType.TOPIC, "t", topicOps));
        assertEquals(0, authorizer.authorizedOperations(BOB, HOST, ResourceType.TOPIC, "t", topicOps));
        assertEquals(0, authorizer.authorizedOperations(ALICE, HOST, ResourceType.TOPIC, "t", Set.of()));
        Authorizer all = acls(allowTopic("t", ALICE, ALL), denyTopic("t", ALICE, DELETE));
        assertEquals((1 << 3) | (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11),
                all.authorizedOperations(ALICE, HOST, ResourceType.TOPIC, "t", topicOps), "all but DELETE");
    }

    @Test
    void filterValuesAreNoAction() {
        Authorizer authorizer = acls();
        assertThrows(IllegalArgumentException.class,
                () -> authorizer.authorize(ALICE, HOST, AclOperation.ANY, ResourceType.TOPIC, "t"));
        assertThrows(IllegalArgumentException.class,
                () -> authorizer.authorize(ALICE, HOST, READ, ResourceType.ANY, "t"));
        assertThrows(IllegalArgumentException.class,
                () -> authorizer.authorizeAny(ALICE, HOST, AclOperation.ANY, ResourceType.TOPIC));
        assertThrows(IllegalArgumentException.class,
                () -> authorizer.authorizeAny(ALICE, HOST, WRITE, ResourceType.ANY));
    }

    @Test
    void bindingsThatCannotBeStoredAreIgnored() {
        AclBinding match = new AclBinding(ResourceType.TOPIC, "t", PatternType.MATCH, ALICE, "*", READ,
                AclPermission.ALLOW);
        AclBinding anyPermission = new AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, ALICE, "*", READ,
                AclPermission.ANY);
        Authorizer authorizer = new Authorizer(List.of(match, anyPermission), Set.of(), true);
        assertTrue(topic(authorizer, BOB, READ, "t"), "ignored, so nothing covers the topic");
        assertEquals(List.of(match, anyPermission), authorizer.bindings(), "still listed as given");
    }
}
