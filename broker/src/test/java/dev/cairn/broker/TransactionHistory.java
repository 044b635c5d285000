package dev.cairn.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link TransactionWorkload}'s producers did (each transaction's size, and its outcome as the producer learnt
 * it: committed, aborted, or unknown), and the anomalies a full read shows against it:
 * <ul>
 *   <li>aborted read: a record of a transaction whose abort was acknowledged;</li>
 *   <li>torn transaction: a transaction seen in part (fewer or more records than it wrote);</li>
 *   <li>lost write: a transaction whose commit was acknowledged, not seen at all;</li>
 *   <li>duplicate: a record read twice;</li>
 *   <li>offset order: a partition's offsets not increasing in the order read.</li>
 * </ul>
 * A transaction whose outcome is unknown may be seen whole or not at all, nothing in between.
 */
final class TransactionHistory {
    static final String COMMITTED = "committed";
    static final String ABORTED = "aborted";
    static final String UNKNOWN = "unknown";

    private final Map<String, Integer> sizes = new HashMap<>();
    private final Map<String, String> outcomes = new HashMap<>();

    /** Reads history files; a line cut short by a killed writer is skipped. */
    static TransactionHistory read(Iterable<Path> files) throws IOException {
        TransactionHistory history = new TransactionHistory();
        for (Path file : files) {
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] fields = line.split(" ");
                if (fields.length == 3 && fields[0].equals("begin") && fields[2].matches("\\d+")) {
                    history.sizes.put(fields[1], Integer.parseInt(fields[2]));
                    history.outcomes.putIfAbsent(fields[1], UNKNOWN);
                } else if (fields.length == 3 && fields[0].equals("end")
                        && (fields[2].equals(COMMITTED) || fields[2].equals(ABORTED))) {
                    history.outcomes.put(fields[1], fields[2]);
                }
            }
        }
        return history;
    }

    long count(String outcome) {
        return outcomes.values().stream().filter(outcome::equals).count();
    }

    int transactions() {
        return outcomes.size();
    }

    /** The anomaly counts of a read (lines "PARTITION OFFSET VALUE", as TransactionWorkload's read writes them). */
    Map<String, Integer> check(Path readFile) throws IOException {
        Map<String, Integer> anomalies = new TreeMap<>(Map.of("aborted read", 0, "torn transaction", 0,
                "lost write", 0, "duplicate", 0, "offset order", 0));
        Set<String> seen = new HashSet<>();
        Map<String, Integer> perTransaction = new HashMap<>();
        Map<Integer, Long> lastOffset = new HashMap<>();
        for (String line : Files.readAllLines(readFile, StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ", 3);
            int partition = Integer.parseInt(fields[0]);
            long offset = Long.parseLong(fields[1]);
            String value = fields[2];
            if (!seen.add(value)) {
                anomalies.merge("duplicate", 1, Integer::sum);
            }
            if (lastOffset.getOrDefault(partition, -1L) >= offset) {
                anomalies.merge("offset order", 1, Integer::sum);
            }
            lastOffset.put(partition, offset);
            perTransaction.merge(value.substring(0, value.lastIndexOf(':')), 1, Integer::sum);
        }
        for (Map.Entry<String, Integer> txn : perTransaction.entrySet()) {
            if (ABORTED.equals(outcomes.get(txn.getKey()))) {
                anomalies.merge("aborted read", 1, Integer::sum);
            }
            if (!txn.getValue().equals(sizes.get(txn.getKey()))) {
                anomalies.merge("torn transaction", 1, Integer::sum);
            }
        }
        outcomes.forEach((name, outcome) -> {
            if (COMMITTED.equals(outcome) && !perTransaction.containsKey(name)) {
                anomalies.merge("lost write", 1, Integer::sum);
            }
        });
        return anomalies;
    }

    /** How many aborted transactions the read shows (read_uncommitted must show some: the checker sees them). */
    int abortedSeen(Path readFile) throws IOException {
        return check(readFile).get("aborted read");
    }
}
