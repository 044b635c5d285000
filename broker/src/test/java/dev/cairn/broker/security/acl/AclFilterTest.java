package dev.cairn.broker.security.acl;

import static dev.cairn.broker.security.acl.Acls.ALICE;
import static dev.cairn.broker.security.acl.Acls.BOB;
import static dev.cairn.broker.security.acl.Acls.allow;
import static dev.cairn.broker.security.acl.Acls.allowTopic;
import static dev.cairn.broker.security.acl.Acls.denyTopic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link AclFilter}: Kafka's DescribeAcls/DeleteAcls matching on hand-picked cases, then over generated bindings
 * and filters against kafka-clients' own {@code AclBindingFilter.matches}.
 */
class AclFilterTest {

    private static final AclBinding LITERAL_ORDERS = allowTopic("orders", ALICE, AclOperation.READ);
    private static final AclBinding LITERAL_STAR = allowTopic("*", ALICE, AclOperation.READ);
    private static final AclBinding PREFIXED_ORD = allow(ResourceType.TOPIC, "ord", PatternType.PREFIXED, ALICE,
            AclOperation.READ);

    private static AclFilter topicFilter(String name, PatternType pattern) {
        return new AclFilter(ResourceType.TOPIC, name, pattern, null, null, AclOperation.ANY, AclPermission.ANY);
    }

    @Test
    void anyMatchesEverything() {
        for (AclBinding binding : List.of(LITERAL_ORDERS, LITERAL_STAR, PREFIXED_ORD,
                denyTopic("x", BOB, AclOperation.ALL))) {
            assertTrue(AclFilter.ANY.matches(binding), binding.toString());
        }
    }

    @Test
    void matchSelectsTheBindingsThatApplyToTheName() {
        AclFilter match = topicFilter("orders", PatternType.MATCH);
        assertTrue(match.matches(LITERAL_ORDERS));
        assertTrue(match.matches(LITERAL_STAR));
        assertTrue(match.matches(PREFIXED_ORD));
        assertFalse(match.matches(allowTopic("orders2", ALICE, AclOperation.READ)));
        assertFalse(match.matches(allow(ResourceType.TOPIC, "orders2", PatternType.PREFIXED, ALICE,
                AclOperation.READ)));
        assertTrue(topicFilter(null, PatternType.MATCH).matches(PREFIXED_ORD), "no name: any");
    }

    @Test
    void literalAndPrefixedFiltersCompareNamesExactly() {
        assertTrue(topicFilter("orders", PatternType.LITERAL).matches(LITERAL_ORDERS));
        assertFalse(topicFilter("orders", PatternType.LITERAL).matches(LITERAL_STAR));
        assertFalse(topicFilter("orders", PatternType.PREFIXED).matches(PREFIXED_ORD));
        assertTrue(topicFilter("ord", PatternType.PREFIXED).matches(PREFIXED_ORD));
        assertFalse(topicFilter("ord", PatternType.LITERAL).matches(PREFIXED_ORD));
        assertTrue(topicFilter("ord", PatternType.ANY).matches(PREFIXED_ORD));
        assertFalse(topicFilter("orders", PatternType.ANY).matches(LITERAL_STAR));
    }

    @Test
    void entryFieldsCompareExactly() {
        AclFilter alice = new AclFilter(ResourceType.ANY, null, PatternType.ANY, ALICE, "*", AclOperation.READ,
                AclPermission.ALLOW);
        assertTrue(alice.matches(LITERAL_ORDERS));
        assertFalse(alice.matches(allowTopic("orders", "User:*", AclOperation.READ)), "no wildcard expansion");
        assertFalse(alice.matches(denyTopic("orders", ALICE, AclOperation.READ)));
        assertFalse(alice.matches(allowTopic("orders", ALICE, AclOperation.ALL)));
        assertFalse(new AclFilter(ResourceType.GROUP, null, PatternType.ANY, null, null, AclOperation.ANY,
                AclPermission.ANY).matches(LITERAL_ORDERS));
    }

    @Test
    void unknownValuesMatchNothingAndAreRefused() {
        AclFilter unknownOp = new AclFilter(ResourceType.ANY, null, PatternType.ANY, null, null, null,
                AclPermission.ANY);
        assertFalse(unknownOp.matches(LITERAL_ORDERS));
        assertEquals(Optional.of("Filter contains UNKNOWN elements: operation"), unknownOp.invalidReason());
        assertEquals(Optional.of("Filter contains UNKNOWN elements: resourceType, patternType, operation, "
                + "permissionType"), new AclFilter(null, "x", null, ALICE, "*", null, null).invalidReason());
        assertEquals(Optional.empty(), AclFilter.ANY.invalidReason());
        assertEquals(Optional.empty(), topicFilter("orders", PatternType.MATCH).invalidReason());
    }

    @Test
    void aBindingsOwnFilterSelectsOnlyIt() {
        List<AclBinding> all = List.of(LITERAL_ORDERS, LITERAL_STAR, PREFIXED_ORD,
                allowTopic("orders", ALICE, AclOperation.WRITE), allowTopic("orders", BOB, AclOperation.READ));
        for (AclBinding binding : all) {
            for (AclBinding other : all) {
                assertEquals(binding.equals(other), binding.toFilter().matches(other), binding + " vs " + other);
            }
        }
    }

    @Test
    void agreesWithKafkasFilterMatching() {
        Random random = new Random(20_260_106L);
        String[] names = {"*", "a", "ab", "abc", "b", AclBinding.CLUSTER_NAME};
        String[] principals = {ALICE, BOB, "User:*", "Group:ops"};
        String[] hosts = {"*", "10.0.0.1", "10.0.0.2"};
        List<AclBinding> bindings = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            bindings.add(new AclBinding(pick(random, concrete(ResourceType.values())), pick(random, names),
                    random.nextBoolean() ? PatternType.LITERAL : PatternType.PREFIXED, pick(random, principals),
                    pick(random, hosts), pick(random, concrete(AclOperation.values())),
                    random.nextBoolean() ? AclPermission.ALLOW : AclPermission.DENY));
        }
        int matched = 0;
        for (int i = 0; i < 2000; i++) {
            AclFilter filter = new AclFilter(orUnknown(random, ResourceType.values()), orNull(random, names),
                    orUnknown(random, PatternType.values()), orNull(random, principals), orNull(random, hosts),
                    orUnknown(random, AclOperation.values()), orUnknown(random, AclPermission.values()));
            org.apache.kafka.common.acl.AclBindingFilter theirs = Acls.toKafka(filter);
            for (AclBinding binding : bindings) {
                boolean ours = filter.matches(binding);
                assertEquals(theirs.matches(Acls.toKafka(binding)), ours, () -> filter + " on " + binding);
                matched += ours ? 1 : 0;
            }
        }
        assertTrue(matched > 1000, "matches are exercised: " + matched);
    }

    /** The values without ANY (the first constant of each enum), as a stored binding has them. */
    private static <T> T[] concrete(T[] values) {
        return Arrays.copyOfRange(values, 1, values.length);
    }

    private static <T> T pick(Random random, T[] values) {
        return values[random.nextInt(values.length)];
    }

    /** A value, ANY more often than not, or now and then null (a code Cairn does not know). */
    private static <T> T orUnknown(Random random, T[] values) {
        int roll = random.nextInt(20);
        if (roll == 0) {
            return null;
        }
        return roll < 10 ? values[0] : pick(random, values);
    }

    private static String orNull(Random random, String[] values) {
        return random.nextInt(3) == 0 ? null : pick(random, values);
    }
}
