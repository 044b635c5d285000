package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Checks a kafka-workload history the way Jepsen's {@code jepsen.tests.kafka} checker does (the definitions
 * are restated in maelstrom-node/README.md and in each method below; Elle's cycle search is not implemented).
 *
 * <p>The analysis first builds a <em>version order</em> per key: a log mapping each offset to the set of
 * messages seen there, from every ok poll and from every send that must have committed (an ok send, or an
 * info send whose message some ok poll returned). Offsets holding two or more messages are
 * {@code inconsistent-offsets}. The <em>index</em> of a message is its position in the log with empty offsets
 * removed, so sparse offsets never count as skips. All order-based checks compare indices.
 */
public final class KafkaChecker {

    /**
     * Anomaly types that do not invalidate a Maelstrom kafka test ({@code allowed-error-types} for
     * {@code :sub-via #{:assign}} without ww-deps). None of them is computed here, but a future cycle search
     * would report them.
     */
    public static final Set<String> ALLOWED_ERROR_TYPES = Set.of(
        "int-send-skip", "G0", "G0-process", "G0-realtime", "PL-1-cycle-exists", "strong-PL-1-cycle-exists");

    /** Bound on unseen messages listed per key in the example text. */
    static final int UNSEEN_MESSAGES_LISTED_MAX = 32;

    /** Per-key version order derived from the history. */
    private record VersionOrder(TreeMap<Long, Set<Long>> log, List<Long> byIndex, Map<Long, Integer> byValue) {
    }

    private final Map<String, List<String>> found = new TreeMap<>();
    private final Map<String, Integer> foundCounts = new TreeMap<>();

    private List<KafkaOp> completions;
    private final Map<OpType, Map<String, Set<Long>>> writesByType = new EnumMap<>(OpType.class);
    private final Map<OpType, Map<String, Set<Long>>> readsByType = new EnumMap<>(OpType.class);
    private final Map<String, Map<Long, KafkaOp>> writerOf = new HashMap<>();
    private final Map<String, Map<Long, KafkaOp>> firstReaderOf = new HashMap<>();
    private final Map<String, VersionOrder> versionOrders = new TreeMap<>();

    private KafkaChecker() {
    }

    /** Bound on [offset msg] pairs shown per example. */
    static final int EXAMPLE_PAIRS_MAX = 12;

    /** A short rendering of {@code op} restricted to {@code key}, for anomaly examples. */
    static String brief(KafkaOp op, String key) {
        if (op == null) {
            return "null";
        }
        StringBuilder text = new StringBuilder("{index ").append(op.index()).append(", process ").append(op.process())
            .append(", ").append(op.type().name().toLowerCase(java.util.Locale.ROOT)).append(' ')
            .append(op.f().name().toLowerCase(java.util.Locale.ROOT));
        if (op.value() instanceof OpValue.Send send) {
            text.append(" key ").append(send.key()).append(" msg ").append(send.msg()).append(" offset ")
                .append(send.offset());
        } else if (op.value() instanceof OpValue.Poll poll && poll.msgs() != null) {
            List<OffsetMsg> pairs = poll.msgs().getOrDefault(key, List.of());
            text.append(" key ").append(key).append(' ');
            for (int i = 0; i < pairs.size() && i < EXAMPLE_PAIRS_MAX; i++) {
                text.append('[').append(pairs.get(i).offset()).append(' ').append(pairs.get(i).msg()).append(']');
            }
            if (pairs.size() > EXAMPLE_PAIRS_MAX) {
                text.append("... (").append(pairs.size()).append(" pairs)");
            }
        }
        return text.append('}').toString();
    }

    /** Checks {@code history} (invocations and completions, in history order). */
    public static CheckResult check(List<KafkaOp> history) {
        return new KafkaChecker().analyse(history);
    }

    private CheckResult analyse(List<KafkaOp> history) {
        completions = history.stream().filter(op -> op.type() != OpType.INVOKE).toList();
        indexWritesAndReads();
        buildVersionOrders();
        duplicates();
        g1a();
        lostWrites();
        internalPollOrder();
        pollOrderPerProcess();
        sendOrderPerProcess();
        SortedMap<String, Integer> unseenCounts = unseen();
        List<OpFn> fnsWithoutOk = fnsWithoutOk(history);

        SortedMap<String, CheckResult.Anomalies> anomalies = new TreeMap<>();
        found.forEach((type, examples) -> anomalies.put(type,
            new CheckResult.Anomalies(foundCounts.get(type), List.copyOf(examples))));
        boolean valid = fnsWithoutOk.isEmpty()
            && anomalies.keySet().stream().allMatch(ALLOWED_ERROR_TYPES::contains);
        return new CheckResult(valid, anomalies, unseenCounts, fnsWithoutOk);
    }

    private void report(String type, String example) {
        foundCounts.merge(type, 1, Integer::sum);
        List<String> examples = found.computeIfAbsent(type, t -> new ArrayList<>());
        if (examples.size() < CheckResult.Anomalies.EXAMPLES_MAX) {
            examples.add(example);
        }
    }

    private static Map<String, List<OffsetMsg>> reads(KafkaOp op) {
        if (op.value() instanceof OpValue.Poll poll && poll.msgs() != null) {
            return poll.msgs();
        }
        return Map.of();
    }

    private void indexWritesAndReads() {
        for (KafkaOp op : completions) {
            if (op.value() instanceof OpValue.Send send) {
                writesByType.computeIfAbsent(op.type(), t -> new HashMap<>())
                    .computeIfAbsent(send.key(), k -> new HashSet<>()).add(send.msg());
                writerOf.computeIfAbsent(send.key(), k -> new HashMap<>()).putIfAbsent(send.msg(), op);
            }
            for (Map.Entry<String, List<OffsetMsg>> entry : reads(op).entrySet()) {
                Set<Long> values = readsByType.computeIfAbsent(op.type(), t -> new HashMap<>())
                    .computeIfAbsent(entry.getKey(), k -> new HashSet<>());
                for (OffsetMsg pair : entry.getValue()) {
                    values.add(pair.msg());
                    if (op.type() == OpType.OK) {
                        firstReaderOf.computeIfAbsent(entry.getKey(), k -> new HashMap<>())
                            .putIfAbsent(pair.msg(), op);
                    }
                }
            }
        }
    }

    private Set<Long> okReads(String key) {
        return readsByType.getOrDefault(OpType.OK, Map.of()).getOrDefault(key, Set.of());
    }

    /** Jepsen's {@code must-have-committed?}: the send was ok, or was info and some ok poll read its message. */
    private boolean mustHaveCommitted(KafkaOp op) {
        if (op.type() == OpType.OK) {
            return true;
        }
        return op.type() == OpType.INFO && op.value() instanceof OpValue.Send send
            && okReads(send.key()).contains(send.msg());
    }

    /**
     * {@code inconsistent-offsets}: one key and offset seen with two or more different messages, from ok polls
     * and from sends that must have committed.
     */
    private void buildVersionOrders() {
        Map<String, TreeMap<Long, Set<Long>>> logs = new TreeMap<>();
        for (KafkaOp op : completions) {
            if (op.value() instanceof OpValue.Send send && send.offset() != null && mustHaveCommitted(op)) {
                logs.computeIfAbsent(send.key(), k -> new TreeMap<>())
                    .computeIfAbsent(send.offset(), o -> new LinkedHashSet<>()).add(send.msg());
            }
            for (Map.Entry<String, List<OffsetMsg>> entry : reads(op).entrySet()) {
                for (OffsetMsg pair : entry.getValue()) {
                    logs.computeIfAbsent(entry.getKey(), k -> new TreeMap<>())
                        .computeIfAbsent(pair.offset(), o -> new LinkedHashSet<>()).add(pair.msg());
                }
            }
        }
        logs.forEach((key, log) -> {
            List<Long> byIndex = new ArrayList<>();
            Map<Long, Integer> byValue = new HashMap<>();
            log.forEach((offset, values) -> {
                if (values.size() > 1) {
                    report("inconsistent-offsets", "key " + key + " offset " + offset + " index " + byIndex.size()
                        + " has messages " + values);
                }
                long first = values.iterator().next();
                byValue.put(first, byIndex.size());
                byIndex.add(first);
            });
            versionOrders.put(key, new VersionOrder(log, byIndex, byValue));
        });
    }

    /** {@code duplicate}: one message appears at more than one offset of a key. */
    private void duplicates() {
        versionOrders.forEach((key, order) -> {
            Map<Long, List<Long>> offsetsOf = new LinkedHashMap<>();
            order.log().forEach((offset, values) -> values.forEach(
                value -> offsetsOf.computeIfAbsent(value, v -> new ArrayList<>()).add(offset)));
            offsetsOf.forEach((value, offsets) -> {
                if (offsets.size() > 1) {
                    report("duplicate", "key " + key + " message " + value + " at offsets " + offsets);
                }
            });
        });
    }

    /** {@code G1a} (aborted read): an ok poll returned a message whose send definitely failed. */
    private void g1a() {
        Map<String, Set<Long>> failed = writesByType.getOrDefault(OpType.FAIL, Map.of());
        for (KafkaOp op : completions) {
            if (op.type() != OpType.OK) {
                continue;
            }
            reads(op).forEach((key, pairs) -> pairs.forEach(pair -> {
                if (failed.getOrDefault(key, Set.of()).contains(pair.msg())) {
                    report("G1a", "key " + key + " message " + pair.msg() + " sent by failed "
                        + brief(writerOf.get(key).get(pair.msg()), key) + " was polled by " + brief(op, key));
                }
            }));
        }
    }

    /**
     * {@code lost-write}: per key, take the highest index any ok poll observed (using each polled message's
     * earliest index); every message whose last appearance in the log is at or below it must have been polled
     * by some ok poll. A message that was not, and whose send must have committed, is lost.
     */
    private void lostWrites() {
        Map<String, Set<Long>> okReads = readsByType.getOrDefault(OpType.OK, Map.of());
        for (Map.Entry<String, Set<Long>> entry : new TreeMap<>(okReads).entrySet()) {
            String key = entry.getKey();
            Set<Long> read = entry.getValue();
            VersionOrder order = versionOrders.get(key);
            Map<Long, Integer> firstIndex = new HashMap<>();
            Map<Long, Integer> lastIndex = new HashMap<>();
            int denseIndex = 0;
            for (Set<Long> values : order.log().values()) {
                for (long value : values) {
                    firstIndex.putIfAbsent(value, denseIndex);
                    lastIndex.put(value, denseIndex);
                }
                denseIndex++;
            }
            int bound = read.stream().filter(firstIndex::containsKey).mapToInt(firstIndex::get).max().orElse(-1);
            Set<Long> mustRead = new LinkedHashSet<>();
            for (Set<Long> values : order.log().values()) {
                for (long value : values) {
                    if (lastIndex.get(value) <= bound) {
                        mustRead.add(value);
                    }
                }
            }
            Long maxReadValue = order.byIndex().size() > bound && bound >= 0 ? order.byIndex().get(bound) : null;
            for (long value : mustRead) {
                KafkaOp writer = writerOf.getOrDefault(key, Map.of()).get(value);
                if (!read.contains(value) && writer != null && mustHaveCommitted(writer)) {
                    report("lost-write", "key " + key + " message " + value + " at index " + firstIndex.get(value)
                        + " was never polled, but index " + bound + " (message " + maxReadValue + ") was, by "
                        + brief(firstReaderOf.getOrDefault(key, Map.of()).get(maxReadValue), key) + "; writer "
                        + brief(writer, key));
                }
            }
        }
    }

    /** Index difference of two messages of a key, or 1 (no evidence) when either index is unknown. */
    private int delta(String key, Long before, Long after) {
        VersionOrder order = versionOrders.get(key);
        if (order == null || before == null || after == null) {
            return 1;
        }
        Integer first = order.byValue().get(before);
        Integer second = order.byValue().get(after);
        return first == null || second == null ? 1 : second - first;
    }

    /**
     * {@code int-poll-skip} / {@code int-nonmonotonic-poll}: inside one poll's result for a key, two
     * consecutive messages whose indices differ by more than one (skip) or by less than one (repeat or go back).
     */
    private void internalPollOrder() {
        for (KafkaOp op : completions) {
            reads(op).forEach((key, pairs) -> {
                for (int i = 1; i < pairs.size(); i++) {
                    long before = pairs.get(i - 1).msg();
                    long after = pairs.get(i).msg();
                    int delta = delta(key, before, after);
                    if (delta > 1) {
                        report("int-poll-skip", "key " + key + " messages " + before + " then " + after
                            + " (delta " + delta + ") in " + brief(op, key));
                    } else if (delta < 1) {
                        report("int-nonmonotonic-poll", "key " + key + " messages " + before + " then " + after
                            + " (delta " + delta + ") in " + brief(op, key));
                    }
                }
            });
        }
    }

    private static Map<Integer, List<KafkaOp>> byProcess(List<KafkaOp> ops) {
        Map<Integer, List<KafkaOp>> byProcess = new TreeMap<>();
        for (KafkaOp op : ops) {
            byProcess.computeIfAbsent(op.process(), p -> new ArrayList<>()).add(op);
        }
        return byProcess;
    }

    private static void keepAssigned(Map<String, KafkaOp> last, KafkaOp op) {
        if (op.f() == OpFn.ASSIGN && (op.type() == OpType.OK || op.type() == OpType.INFO)) {
            last.keySet().retainAll(((OpValue.Assign) op.value()).keys());
        }
    }

    /**
     * {@code poll-skip} / {@code nonmonotonic-poll}: for each process, compare the last message its previous ok
     * poll of a key returned with the first message of its next poll of that key. A difference of more than one
     * index is a skip; less than one is nonmonotonic. An assign forgets the keys it does not assign.
     */
    private void pollOrderPerProcess() {
        for (List<KafkaOp> ops : byProcess(completions).values()) {
            Map<String, KafkaOp> lastReads = new HashMap<>();
            for (KafkaOp op : ops) {
                keepAssigned(lastReads, op);
                if (op.f() != OpFn.POLL) {
                    continue;
                }
                Map<String, List<OffsetMsg>> reads = reads(op);
                for (Map.Entry<String, List<OffsetMsg>> entry : reads.entrySet()) {
                    KafkaOp lastOp = lastReads.get(entry.getKey());
                    if (lastOp == null) {
                        continue;
                    }
                    List<OffsetMsg> previous = reads(lastOp).get(entry.getKey());
                    Long before = previous.isEmpty() ? null : previous.get(previous.size() - 1).msg();
                    Long after = entry.getValue().isEmpty() ? null : entry.getValue().get(0).msg();
                    int delta = delta(entry.getKey(), before, after);
                    if (delta > 1) {
                        report("poll-skip", "key " + entry.getKey() + " process " + op.process() + " polled "
                            + before + " then " + after + " (delta " + delta + "): " + brief(lastOp, entry.getKey())
                            + " then " + brief(op, entry.getKey()));
                    } else if (delta < 1) {
                        report("nonmonotonic-poll", "key " + entry.getKey() + " process " + op.process()
                            + " polled " + before + " then " + after + " (delta " + delta + "): "
                            + brief(lastOp, entry.getKey()) + " then " + brief(op, entry.getKey()));
                    }
                }
                if (op.type() == OpType.OK) {
                    reads.keySet().forEach(key -> lastReads.put(key, op));
                }
            }
        }
    }

    /**
     * {@code nonmonotonic-send}: for each process, over its ok and info completions, a send to a key whose
     * message sits at or before (in index) the message of the process's previous send to that key.
     */
    private void sendOrderPerProcess() {
        List<KafkaOp> okOrInfo = completions.stream()
            .filter(op -> op.type() == OpType.OK || op.type() == OpType.INFO).toList();
        for (List<KafkaOp> ops : byProcess(okOrInfo).values()) {
            Map<String, KafkaOp> lastSends = new HashMap<>();
            for (KafkaOp op : ops) {
                keepAssigned(lastSends, op);
                if (!(op.value() instanceof OpValue.Send send)) {
                    continue;
                }
                KafkaOp lastOp = lastSends.get(send.key());
                if (lastOp != null) {
                    long before = ((OpValue.Send) lastOp.value()).msg();
                    int delta = delta(send.key(), before, send.msg());
                    if (delta < 1) {
                        report("nonmonotonic-send", "key " + send.key() + " process " + op.process() + " sent "
                            + before + " then " + send.msg() + " (delta " + delta + "): " + brief(lastOp, send.key())
                            + " then " + brief(op, send.key()));
                    }
                }
                lastSends.put(send.key(), op);
            }
        }
    }

    /** {@code unseen}: messages of ok sends that no ok poll ever returned. */
    private SortedMap<String, Integer> unseen() {
        SortedMap<String, Integer> counts = new TreeMap<>();
        Map<String, Set<Long>> okSends = writesByType.getOrDefault(OpType.OK, Map.of());
        new TreeMap<>(okSends).forEach((key, sent) -> {
            List<Long> missing = new ArrayList<>(sent);
            missing.removeAll(okReads(key));
            if (!missing.isEmpty()) {
                Collections.sort(missing);
                counts.put(key, missing.size());
                report("unseen", "key " + key + ": " + missing.size() + " acknowledged sends never polled: "
                    + missing.subList(0, Math.min(missing.size(), UNSEEN_MESSAGES_LISTED_MAX)));
            }
        });
        return counts;
    }

    /** Jepsen's stats checker: every function except crash needs at least one ok completion. */
    private static List<OpFn> fnsWithoutOk(List<KafkaOp> history) {
        Set<OpFn> invoked = new java.util.TreeSet<>();
        Set<OpFn> ok = new HashSet<>();
        for (KafkaOp op : history) {
            if (op.type() == OpType.INVOKE && op.f() != OpFn.CRASH) {
                invoked.add(op.f());
            } else if (op.type() == OpType.OK) {
                ok.add(op.f());
            }
        }
        invoked.removeAll(ok);
        return List.copyOf(invoked);
    }
}
