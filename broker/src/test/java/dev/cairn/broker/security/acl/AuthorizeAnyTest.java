package dev.cairn.broker.security.acl;

import static dev.cairn.broker.security.acl.Acls.ALICE;
import static dev.cairn.broker.security.acl.Acls.BOB;
import static dev.cairn.broker.security.acl.Acls.HOST;
import static dev.cairn.broker.security.acl.Acls.OTHER_HOST;
import static dev.cairn.broker.security.acl.Acls.allow;
import static dev.cairn.broker.security.acl.Acls.allowTopic;
import static dev.cairn.broker.security.acl.Acls.denyTopic;
import static dev.cairn.broker.security.acl.Acls.onHost;
import static dev.cairn.broker.security.acl.AclOperation.ALL;
import static dev.cairn.broker.security.acl.AclOperation.DESCRIBE;
import static dev.cairn.broker.security.acl.AclOperation.IDEMPOTENT_WRITE;
import static dev.cairn.broker.security.acl.AclOperation.READ;
import static dev.cairn.broker.security.acl.AclOperation.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link Authorizer#authorizeAny}: hand-picked cases, then a fixed-seed comparison with Kafka's own
 * authorizeByResourceType (the kafka-clients default method) run over the same bindings.
 */
class AuthorizeAnyTest {

    private static boolean anyTopic(boolean allowEveryone, String principal, AclOperation op,
            AclBinding... bindings) {
        return new Authorizer(List.of(bindings), Set.of("User:admin"), allowEveryone)
                .authorizeAny(principal, HOST, op, ResourceType.TOPIC);
    }

    private static AclBinding prefixed(AclPermission permission, String prefix, AclOperation op) {
        return new AclBinding(ResourceType.TOPIC, prefix, PatternType.PREFIXED, ALICE, "*", op, permission);
    }

    @Test
    void superUserAlwaysPasses() {
        assertTrue(anyTopic(false, "User:admin", WRITE));
        assertTrue(anyTopic(false, "User:admin", WRITE, denyTopic("*", "User:admin", ALL)));
    }

    @Test
    void withoutBindingsAllowEveryoneDecides() {
        assertTrue(anyTopic(true, ALICE, WRITE));
        assertFalse(anyTopic(false, ALICE, WRITE));
    }

    @Test
    void anUndominatedAllowPasses() {
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, ALL)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", "User:*", WRITE)));
        assertTrue(anyTopic(false, ALICE, WRITE, prefixed(AclPermission.ALLOW, "t", WRITE)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("*", ALICE, WRITE)));
    }

    @Test
    void allowsForOthersOrOtherOperationsDoNotCount() {
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("t", BOB, WRITE)));
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, READ)));
        assertFalse(anyTopic(false, ALICE, DESCRIBE, allowTopic("t", ALICE, READ)), "nothing is implied here");
        assertFalse(anyTopic(false, ALICE, WRITE, onHost(allowTopic("t", ALICE, WRITE), OTHER_HOST)));
        assertFalse(anyTopic(false, ALICE, WRITE, allow(ResourceType.GROUP, "t", PatternType.LITERAL, ALICE,
                WRITE)));
    }

    @Test
    void aDenyDominatesTheAllowsItCovers() {
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE), denyTopic("t", ALICE, WRITE)));
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("tx", ALICE, WRITE),
                prefixed(AclPermission.DENY, "t", WRITE)));
        assertFalse(anyTopic(false, ALICE, WRITE, prefixed(AclPermission.ALLOW, "abc", WRITE),
                prefixed(AclPermission.DENY, "ab", ALL)));
        assertTrue(anyTopic(false, ALICE, WRITE, prefixed(AclPermission.ALLOW, "ab", WRITE),
                prefixed(AclPermission.DENY, "abc", WRITE)), "topic abd is still writable");
        assertTrue(anyTopic(false, ALICE, WRITE, prefixed(AclPermission.ALLOW, "ab", WRITE),
                denyTopic("ab", ALICE, WRITE)), "a LITERAL deny leaves the rest of the prefix");
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE), denyTopic("u", ALICE, WRITE)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE), denyTopic("t", BOB, WRITE)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE), denyTopic("t", ALICE, READ)));
        assertTrue(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE), denyTopic("u", ALICE, WRITE),
                allowTopic("v", ALICE, WRITE), denyTopic("t", ALICE, WRITE)), "v is not denied");
    }

    @Test
    void aWildcardDenyRefusesOutright() {
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("*", ALICE, WRITE), denyTopic("*", ALICE, WRITE)));
        assertFalse(anyTopic(true, ALICE, WRITE, denyTopic("*", "User:*", ALL)));
        assertFalse(anyTopic(false, ALICE, WRITE, allowTopic("t", ALICE, WRITE),
                prefixed(AclPermission.DENY, "", WRITE)), "an empty prefix (never stored) covers all too");
    }

    /** As in Kafka: the probe resource has no bindings, so allow.everyone.if.no.acl.found passes the check. */
    @Test
    void allowEveryonePassesWhenSomeResourceIsUncovered() {
        assertTrue(anyTopic(true, ALICE, WRITE, denyTopic("t", ALICE, WRITE), allowTopic("u", BOB, WRITE)));
        assertFalse(anyTopic(false, ALICE, WRITE, denyTopic("t", ALICE, WRITE), allowTopic("u", BOB, WRITE)));
    }

    @Test
    void idempotentWriteOnTheClusterIsTheOtherRoute() {
        Authorizer authorizer = new Authorizer(List.of(allow(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME,
                PatternType.LITERAL, ALICE, IDEMPOTENT_WRITE)), Set.of(), false);
        assertTrue(authorizer.authorizeAny(ALICE, HOST, IDEMPOTENT_WRITE, ResourceType.CLUSTER));
        assertFalse(authorizer.authorizeAny(ALICE, HOST, WRITE, ResourceType.TOPIC));
    }

    @Test
    void agreesWithKafkasAuthorizeByResourceType() {
        Random random = new Random(0x5eed_ac1L);
        String[] names = {"*", "a", "ab", "abc", "b", "h", "hard", "hardcode", "x"};
        String[] principals = {ALICE, BOB, "User:*", "User:admin"};
        String[] hosts = {"*", HOST, OTHER_HOST};
        AclOperation[] ops = {READ, WRITE, DESCRIBE, ALL, IDEMPOTENT_WRITE};
        ResourceType[] types = {ResourceType.TOPIC, ResourceType.GROUP};
        int allowed = 0;
        for (int round = 0; round < 3000; round++) {
            List<AclBinding> bindings = new ArrayList<>();
            int count = random.nextInt(7);
            for (int i = 0; i < count; i++) {
                bindings.add(new AclBinding(pick(random, types), pick(random, names),
                        random.nextBoolean() ? PatternType.LITERAL : PatternType.PREFIXED, pick(random, principals),
                        pick(random, hosts), pick(random, ops),
                        random.nextInt(3) == 0 ? AclPermission.DENY : AclPermission.ALLOW));
            }
            Authorizer cairn = new Authorizer(bindings, Set.of("User:admin"), random.nextInt(4) == 0);
            KafkaAuthorizerAdapter kafka = new KafkaAuthorizerAdapter(cairn);
            for (String principal : new String[] {ALICE, BOB, "User:admin"}) {
                AclOperation op = ops[random.nextInt(ops.length - 2)];
                ResourceType type = pick(random, types);
                boolean ours = cairn.authorizeAny(principal, HOST, op, type);
                assertEquals(kafka.authorizeByResourceType(principal, HOST, op, type), ours,
                        () -> principal + " " + op + " " + type + " over " + bindings);
                allowed += ours ? 1 : 0;
            }
        }
        assertTrue(allowed > 1000 && allowed < 8000, "both answers are exercised: " + allowed);
    }

    private static <T> T pick(Random random, T[] values) {
        return values[random.nextInt(values.length)];
    }
}
