package dev.cairn.maelstrom.harness;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Run statistics, like Maelstrom's {@code :stats}, {@code :availability} and {@code :net} results plus the
 * latency quantiles Maelstrom only draws (latency-quantiles.png).
 *
 * @param invocations        client operation invocations (crash and assign included, as Maelstrom counts them)
 * @param okCount            ok completions
 * @param failCount          fail completions
 * @param infoCount          info completions
 * @param byFn               per function: {invoked, ok, fail, info}
 * @param net                message counts
 * @param latency            latency of ok operations (invoke to completion)
 */
public record RunStats(long invocations, long okCount, long failCount, long infoCount, Map<OpFn, long[]> byFn,
                       NetStats net, Latency latency) {

    /** Latency quantiles in milliseconds over {@code count} ok operations (nearest-rank). */
    public record Latency(int count, double p50Ms, double p95Ms, double p99Ms, double maxMs) {
    }

    /** Maelstrom's {@code :availability :ok-fraction}: ok completions over invocations. */
    public double okFraction() {
        return invocations == 0 ? 0 : (double) okCount / invocations;
    }

    /** Maelstrom's {@code :net :all :msgs-per-op}. */
    public double msgsPerOp() {
        return invocations == 0 ? 0 : (double) net.allMessages() / invocations;
    }

    /** Maelstrom's {@code :net :servers :msgs-per-op}: node-to-node messages per invocation. */
    public double serverMsgsPerOp() {
        return invocations == 0 ? 0 : (double) net.serverMessages() / invocations;
    }

    /** Computes the statistics of {@code history}. */
    static RunStats of(List<KafkaOp> history, NetStats net) {
        Map<OpFn, long[]> byFn = new EnumMap<>(OpFn.class);
        Map<Integer, KafkaOp> open = new HashMap<>();
        List<Double> okLatenciesMs = new ArrayList<>();
        long invocations = 0;
        long ok = 0;
        long fail = 0;
        long info = 0;
        for (KafkaOp op : history) {
            long[] counts = byFn.computeIfAbsent(op.f(), f -> new long[4]);
            counts[op.type().ordinal()]++;
            switch (op.type()) {
                case INVOKE -> {
                    invocations++;
                    open.put(op.process(), op);
                }
                case OK -> {
                    ok++;
                    KafkaOp invoke = open.remove(op.process());
                    if (invoke != null) {
                        okLatenciesMs.add((op.timeNs() - invoke.timeNs()) / 1e6);
                    }
                }
                case FAIL -> {
                    fail++;
                    open.remove(op.process());
                }
                default -> {
                    info++;
                    open.remove(op.process());
                }
            }
        }
        okLatenciesMs.sort(null);
        Latency latency = new Latency(okLatenciesMs.size(), quantile(okLatenciesMs, 0.50),
            quantile(okLatenciesMs, 0.95), quantile(okLatenciesMs, 0.99), quantile(okLatenciesMs, 1.0));
        return new RunStats(invocations, ok, fail, info, byFn, net, latency);
    }

    private static double quantile(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
