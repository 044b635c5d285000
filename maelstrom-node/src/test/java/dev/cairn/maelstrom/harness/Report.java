package dev.cairn.maelstrom.harness;

import java.util.Locale;
import java.util.Map;

/** Renders a {@link HarnessResult} as the small text report the CLI prints. */
public final class Report {

    private Report() {
    }

    /** The report text: configuration, operation table, messages, latency, anomalies and the verdict. */
    public static String format(HarnessResult result) {
        HarnessConfig config = result.config();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "kafka workload: %d node(s), concurrency %d, rate %.0f/s, %.0f s, "
                + "latency %.0f ms %s, nemesis %s, seed %d%n", config.nodeCount(), config.concurrency(),
            config.rate(), config.timeLimitS(), config.latencyMs(),
            config.latencyDist().name().toLowerCase(Locale.ROOT),
            config.partition() ? "partition every ~" + config.nemesisIntervalS() + " s" : "none", config.seed()));
        result.failures().forEach(failure -> out.append("FAILURE: ").append(failure).append('\n'));
        RunStats stats = result.stats();
        if (stats != null) {
            appendStats(out, stats);
        }
        CheckResult check = result.check();
        if (check != null) {
            appendCheck(out, check);
        }
        out.append(result.valid() ? "Everything looks good! \u30fd(\u2018\u30fc`)\u30ce\n"
            : "Analysis invalid! (\uff89\u0ca5\u76ca\u0ca5\uff09\uff89 \u253b\u2501\u253b\n");
        return out.toString();
    }

    private static void appendStats(StringBuilder out, RunStats stats) {
        out.append(String.format(Locale.ROOT, "%-8s %9s %9s %9s %9s%n", "op", "invoked", "ok", "fail", "info"));
        for (Map.Entry<OpFn, long[]> entry : stats.byFn().entrySet()) {
            long[] c = entry.getValue();
            out.append(String.format(Locale.ROOT, "%-8s %9d %9d %9d %9d%n",
                entry.getKey().name().toLowerCase(Locale.ROOT), c[0], c[1], c[2], c[3]));
        }
        out.append(String.format(Locale.ROOT, "%-8s %9d %9d %9d %9d%n", "all", stats.invocations(), stats.okCount(),
            stats.failCount(), stats.infoCount()));
        out.append(String.format(Locale.ROOT, "availability (ok fraction)   %.4f%n", stats.okFraction()));
        NetStats net = stats.net();
        out.append(String.format(Locale.ROOT, "messages all                 %d (%.2f per op)%n", net.allMessages(),
            stats.msgsPerOp()));
        out.append(String.format(Locale.ROOT,
            "messages node-to-node        %d (%.2f per op), %d dropped by partitions%n", net.serverMessages(),
            stats.serverMsgsPerOp(), net.droppedByPartition()));
        if (net.droppedUnknownDest() > 0 || net.malformedLines() > 0) {
            out.append(String.format(Locale.ROOT, "messages to unknown dest     %d, malformed stdout lines %d%n",
                net.droppedUnknownDest(), net.malformedLines()));
        }
        RunStats.Latency latency = stats.latency();
        out.append(String.format(Locale.ROOT, "latency ok ops (ms)          p50 %.1f  p95 %.1f  p99 %.1f  max %.1f"
            + "  (%d ops)%n", latency.p50Ms(), latency.p95Ms(), latency.p99Ms(), latency.maxMs(), latency.count()));
    }

    private static void appendCheck(StringBuilder out, CheckResult check) {
        if (!check.fnsWithoutOk().isEmpty()) {
            out.append("functions without any ok completion: ").append(check.fnsWithoutOk()).append('\n');
        }
        if (check.anomalies().isEmpty()) {
            out.append("anomalies: none\n");
            return;
        }
        out.append("anomalies: ").append(check.counts()).append('\n');
        check.anomalies().forEach((type, found) -> {
            for (String example : found.examples()) {
                out.append("  ").append(type).append(": ").append(example).append('\n');
            }
        });
    }
}
