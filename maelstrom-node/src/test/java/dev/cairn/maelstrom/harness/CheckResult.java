package dev.cairn.maelstrom.harness;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The kafka checker's verdict, shaped like the {@code :workload} map of Maelstrom's results.edn.
 *
 * @param valid          false when any anomaly type outside Jepsen's allowed set was found, or when some
 *                       operation function never completed ok (Jepsen's stats checker)
 * @param anomalies      anomaly type (Jepsen's keyword without the colon, e.g. {@code lost-write}) to its cases
 * @param unseenCounts   key to the number of acknowledged sends never polled (Jepsen's {@code :unseen :unseen})
 * @param fnsWithoutOk   operation functions (crash excluded) with zero ok completions
 */
public record CheckResult(boolean valid, SortedMap<String, Anomalies> anomalies,
                          SortedMap<String, Integer> unseenCounts, List<OpFn> fnsWithoutOk) {

    /** The cases of one anomaly type: how many were found, and up to {@link #EXAMPLES_MAX} of them. */
    public record Anomalies(int count, List<String> examples) {
        /** Bound on examples kept per anomaly type (Jepsen keeps 8 for most types). */
        public static final int EXAMPLES_MAX = 8;
    }

    /** The anomaly types found, sorted. */
    public List<String> errorTypes() {
        return List.copyOf(anomalies.keySet());
    }

    /** Convenience for tests and the report: the anomaly map's keys with their counts. */
    public Map<String, Integer> counts() {
        java.util.TreeMap<String, Integer> counts = new java.util.TreeMap<>();
        anomalies.forEach((type, found) -> counts.put(type, found.count()));
        return counts;
    }
}
