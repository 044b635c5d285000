package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * The partition shapes of Jepsen's {@code partition-package} as Maelstrom uses them
 * ({@code jepsen.nemesis.combined/grudge}). A <em>grudge</em> maps each node to the set of nodes whose
 * messages it drops.
 */
public enum PartitionShape {
    /** Isolates one random node from all others. */
    ONE,
    /** Cleanly splits away {@code floor((n - 1) / 3)} random nodes (none at all for n below 4). */
    MINORITY_THIRD,
    /** A clean split of shuffled nodes: the smaller half ({@code floor(n / 2)} nodes) against the rest. */
    MAJORITY,
    /**
     * Overlapping majorities in a ring: nodes are shuffled into a ring, each window of {@code majority(n)}
     * consecutive nodes belongs to the node in its middle, and that node drops everyone outside its window.
     * (Jepsen's "perfect" variant; Jepsen switches to a stochastic construction above 5 nodes.)
     */
    MAJORITIES_RING;

    /** Builds the grudge for this shape over {@code nodes}. */
    public Map<String, Set<String>> grudge(List<String> nodes, Random random) {
        List<String> shuffled = new ArrayList<>(nodes);
        Collections.shuffle(shuffled, random);
        return switch (this) {
            case ONE -> completeGrudge(List.of(shuffled.subList(0, 1), shuffled.subList(1, shuffled.size())));
            case MINORITY_THIRD -> split(shuffled, (nodes.size() - 1) / 3);
            case MAJORITY -> split(shuffled, nodes.size() / 2);
            case MAJORITIES_RING -> majoritiesRing(shuffled);
        };
    }

    /** Smallest integer strictly greater than half of {@code n} (Jepsen's {@code majority}). */
    static int majority(int n) {
        return n / 2 + 1;
    }

    private static Map<String, Set<String>> split(List<String> shuffled, int firstSize) {
        return completeGrudge(List.of(shuffled.subList(0, firstSize), shuffled.subList(firstSize, shuffled.size())));
    }

    /** Every node drops messages from all nodes outside its own component. */
    static Map<String, Set<String>> completeGrudge(List<List<String>> components) {
        Set<String> universe = new HashSet<>();
        components.forEach(universe::addAll);
        Map<String, Set<String>> grudge = new TreeMap<>();
        for (List<String> component : components) {
            for (String node : component) {
                Set<String> blocked = new HashSet<>(universe);
                blocked.removeAll(component);
                grudge.put(node, blocked);
            }
        }
        return grudge;
    }

    private static Map<String, Set<String>> majoritiesRing(List<String> ring) {
        int n = ring.size();
        int m = majority(n);
        Map<String, Set<String>> grudge = new TreeMap<>();
        for (int start = 0; start < n; start++) {
            List<String> window = new ArrayList<>();
            for (int i = 0; i < m; i++) {
                window.add(ring.get((start + i) % n));
            }
            Set<String> blocked = new HashSet<>(ring);
            blocked.removeAll(window);
            grudge.put(window.get(m / 2), blocked);
        }
        return grudge;
    }

    /** The shape's Jepsen name, e.g. {@code majorities-ring}. */
    public String jepsenName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
