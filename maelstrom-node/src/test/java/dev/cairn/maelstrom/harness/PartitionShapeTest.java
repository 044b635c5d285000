package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The partition shapes of jepsen.nemesis.combined/grudge as Maelstrom's partition nemesis draws them. */
class PartitionShapeTest {

    private static final List<String> THREE = List.of("n0", "n1", "n2");
    private static final List<String> FIVE = List.of("n0", "n1", "n2", "n3", "n4");

    /** Nodes a node can still hear from (itself included). */
    private static Set<String> visible(Map<String, Set<String>> grudge, List<String> nodes, String node) {
        Set<String> visible = new HashSet<>(nodes);
        visible.removeAll(grudge.getOrDefault(node, Set.of()));
        return visible;
    }

    @Test
    void oneIsolatesExactlyOneNodeInBothDirections() {
        Map<String, Set<String>> grudge = PartitionShape.ONE.grudge(FIVE, new Random(1));
        long isolated = FIVE.stream().filter(node -> visible(grudge, FIVE, node).size() == 1).count();
        assertEquals(1, isolated);
        FIVE.forEach(a -> FIVE.forEach(b -> assertEquals(grudge.get(a).contains(b), grudge.get(b).contains(a))));
    }

    @Test
    void majoritySplitsTheSmallerHalfFromTheRest() {
        Map<String, Set<String>> grudge = PartitionShape.MAJORITY.grudge(FIVE, new Random(2));
        List<Integer> sizes = FIVE.stream().map(node -> visible(grudge, FIVE, node).size()).sorted().toList();
        assertEquals(List.of(2, 2, 3, 3, 3), sizes);
        Map<String, Set<String>> three = PartitionShape.MAJORITY.grudge(THREE, new Random(2));
        assertEquals(List.of(1, 2, 2), THREE.stream().map(node -> visible(three, THREE, node).size()).sorted().toList());
    }

    @Test
    void minorityThirdSplitsOffLessThanAThird() {
        Map<String, Set<String>> grudge = PartitionShape.MINORITY_THIRD.grudge(FIVE, new Random(3));
        assertEquals(List.of(1, 4, 4, 4, 4), FIVE.stream().map(node -> visible(grudge, FIVE, node).size()).sorted()
            .toList());
        // (3 - 1) / 3 = 0 nodes: with three nodes this shape cuts nothing, as in Jepsen.
        Map<String, Set<String>> three = PartitionShape.MINORITY_THIRD.grudge(THREE, new Random(3));
        THREE.forEach(node -> assertTrue(three.get(node).isEmpty()));
    }

    @Test
    void majoritiesRingGivesEveryNodeADifferentMajority() {
        for (List<String> nodes : List.of(THREE, FIVE)) {
            Map<String, Set<String>> grudge = PartitionShape.MAJORITIES_RING.grudge(nodes, new Random(4));
            Set<Set<String>> views = new HashSet<>();
            for (String node : nodes) {
                Set<String> view = visible(grudge, nodes, node);
                assertEquals(PartitionShape.majority(nodes.size()), view.size(), "node " + node + " sees " + view);
                assertTrue(view.contains(node));
                views.add(view);
            }
            assertEquals(nodes.size(), views.size(), "all majorities differ: " + grudge);
        }
    }

    @Test
    void shapesAreDeterministicForASeed() {
        for (PartitionShape shape : PartitionShape.values()) {
            assertEquals(shape.grudge(FIVE, new Random(9)), shape.grudge(FIVE, new Random(9)));
        }
        assertFalse(PartitionShape.ONE.grudge(FIVE, new Random(1)).isEmpty());
        assertEquals("majorities-ring", PartitionShape.MAJORITIES_RING.jepsenName());
    }
}
