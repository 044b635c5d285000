package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Generates operations as Maelstrom's kafka workload does (jepsen.tests.kafka over Elle's list-append
 * generator, transactions of length 1). Shared by all workers; every method is synchronized.
 *
 * <ul>
 *   <li>Each op is a send or a poll with equal probability, on a key drawn from the active pool of
 *       {@code keyCount} keys with Elle's exponential distribution (base 2). Messages are 1, 2, 3, ... per key;
 *       after {@code maxWritesPerKey} sends a key is retired and replaced by a fresh one.</li>
 *   <li>With probability 1/64 an {@code :assign} of that op's key is emitted instead; a third of assigns also
 *       add every key with acknowledged but not yet polled sends ({@code poll-unseen}).</li>
 *   <li>Client crashes come every {@code 30 / concurrency} seconds on average ({@code crash-client-gen}).</li>
 * </ul>
 */
final class KafkaOpGenerator {

    /** Probability of an assign instead of a send or poll ({@code :sub-p 1/64}). */
    static final double ASSIGN_PROBABILITY = 1.0 / 64;
    /** Probability that an assign also takes the keys with unseen sends ({@code poll-unseen}). */
    static final double POLL_UNSEEN_PROBABILITY = 1.0 / 3;
    /** Mean seconds between crashes of any one client ({@code :crash-client-interval}). */
    static final double CRASH_CLIENT_INTERVAL_S = 30;
    /** Base of Elle's exponential key distribution. */
    static final double KEY_DIST_BASE = 2;

    private final int maxWritesPerKey;
    private final Random random;
    private final double crashStaggerNs;
    private final double keyDistScale;
    private final List<Integer> activeKeys = new ArrayList<>();
    private final Map<Integer, Long> nextMessage = new HashMap<>();
    private final Map<String, Long> sentMax = new TreeMap<>();
    private final Map<String, Long> polledMax = new TreeMap<>();
    private final Map<String, Long> maxOffsets = new TreeMap<>();
    private long nextCrashNs;

    KafkaOpGenerator(int keyCount, int maxWritesPerKey, int concurrency, Random random) {
        this.maxWritesPerKey = maxWritesPerKey;
        this.random = random;
        this.crashStaggerNs = CRASH_CLIENT_INTERVAL_S / concurrency * 1e9;
        this.keyDistScale = Math.pow(KEY_DIST_BASE, keyCount + 1) - KEY_DIST_BASE;
        for (int key = 0; key < keyCount; key++) {
            activeKeys.add(key);
        }
        this.nextCrashNs = stagger(crashStaggerNs);
    }

    /** Jepsen's {@code gen/stagger}: a uniform delay in 0 .. 2 x mean. */
    private long stagger(double meanNs) {
        return (long) (random.nextDouble() * 2 * meanNs);
    }

    private int randomKey() {
        double index = Math.log(random.nextDouble() * keyDistScale + KEY_DIST_BASE) / Math.log(KEY_DIST_BASE) - 1;
        return activeKeys.get(Math.min(activeKeys.size() - 1, (int) Math.floor(index)));
    }

    /** The next operation for a worker that is free at {@code nowNs}. */
    synchronized OpValue next(long nowNs) {
        if (nowNs >= nextCrashNs) {
            nextCrashNs = Math.max(nextCrashNs, nowNs - (long) crashStaggerNs) + stagger(crashStaggerNs);
            return new OpValue.None();
        }
        if (random.nextDouble() < ASSIGN_PROBABILITY) {
            Set<String> keys = new LinkedHashSet<>();
            keys.add(String.valueOf(randomKey()));
            if (random.nextDouble() < POLL_UNSEEN_PROBABILITY) {
                keys.addAll(sentMax.keySet());
            }
            return new OpValue.Assign(List.copyOf(keys), false);
        }
        if (random.nextBoolean()) {
            return new OpValue.Poll(null);
        }
        while (true) {
            int key = randomKey();
            long message = nextMessage.getOrDefault(key, 1L);
            if (message > maxWritesPerKey) {
                int fresh = activeKeys.stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
                activeKeys.set(activeKeys.indexOf(key), fresh);
                continue;
            }
            nextMessage.put(key, message + 1);
            return new OpValue.Send(String.valueOf(key), message, null);
        }
    }

    /** Tracks ok completions: offsets sent and polled (poll-unseen) and the highest offsets (final polls). */
    synchronized void onComplete(KafkaOp op) {
        if (op.type() != OpType.OK) {
            return;
        }
        if (op.value() instanceof OpValue.Send send && send.offset() != null) {
            sentMax.merge(send.key(), send.offset(), Math::max);
            maxOffsets.merge(send.key(), send.offset(), Math::max);
        } else if (op.value() instanceof OpValue.Poll poll && poll.msgs() != null) {
            poll.msgs().forEach((key, pairs) -> pairs.forEach(pair -> {
                polledMax.merge(key, pair.offset(), Math::max);
                maxOffsets.merge(key, pair.offset(), Math::max);
            }));
        }
        for (String key : new ArrayList<>(sentMax.keySet())) {
            if (polledMax.getOrDefault(key, -1L) >= sentMax.get(key)) {
                sentMax.remove(key);
                polledMax.remove(key);
            }
        }
    }

    /** Key to the highest offset any ok send or poll saw: what the final polls must reach. */
    synchronized Map<String, Long> maxOffsets() {
        return new TreeMap<>(maxOffsets);
    }
}
