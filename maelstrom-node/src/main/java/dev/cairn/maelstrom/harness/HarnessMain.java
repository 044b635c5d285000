package dev.cairn.maelstrom.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Command line: {@code HarnessMain --bin <node> [options] [-- node args...]}, flags named as Maelstrom's.
 * Exits 0 when valid, 1 when invalid, 254 for bad arguments and 255 when the test crashed.
 */
public final class HarnessMain {

    /** Jepsen's exit status for bad command-line arguments. */
    static final int EXIT_BAD_ARGS = 254;

    static final String USAGE = String.join("\n",
        "usage: HarnessMain --bin <node executable> [options] [-- <node args>...]",
        "  --node-count N           nodes n0..n(N-1) (default 1)",
        "  --concurrency C|Kn       logical clients; Kn means K x node count (default 2n)",
        "  --rate R                 target ops/s (default 5)",
        "  --time-limit S           main phase seconds (default 60)",
        "  --latency MS             mean node-to-node delay (default 0)",
        "  --latency-dist D         constant | uniform | exponential (default constant)",
        "  --nemesis partition      run the partition nemesis",
        "  --nemesis-interval S     mean seconds between partition start/stop (default 10)",
        "  --seed N                 seed for workload, nemesis and latency (default 1)",
        "  --key-count N            active keys (default 10)",
        "  --max-writes-per-key N   sends per key before it is retired (default 16)",
        "  --recovery-wait S        wait after healing before final polls (default 10)",
        "  --final-polls S          bound on the final polls (default 10)",
        "  --availability A         also require ok fraction >= A (0..1)",
        "  --log-dir DIR            node stderr logs, history.txt, results.txt (default ./harness-logs)",
        "  --log-stderr             also echo node stderr with a [nX] prefix");

    private HarnessMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.exit(run(args, out));
    }

    /** Parses {@code args}, runs the test, prints the report to {@code out}; returns the exit status. */
    static int run(String[] args, PrintStream out) throws IOException, InterruptedException {
        HarnessConfig.Builder builder = HarnessConfig.builder();
        String bin = null;
        List<String> nodeArgs = new ArrayList<>();
        String concurrency = "2n";
        int nodeCount = 1;
        double availability = -1;
        double latencyMs = 0;
        LatencyDistribution dist = LatencyDistribution.CONSTANT;
        boolean partition = false;
        double interval = 10;
        double recoveryS = 10;
        double finalPollsS = 10;
        int keyCount = 10;
        int maxWrites = 16;
        Path logDir = Path.of("harness-logs");
        boolean logStderr = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if ("--".equals(flag)) {
                    nodeArgs.addAll(List.of(args).subList(i + 1, args.length));
                    break;
                }
                if ("--log-stderr".equals(flag)) {
                    logStderr = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + flag);
                }
                String value = args[++i];
                switch (flag) {
                    case "--bin" -> bin = value;
                    case "--node-count" -> nodeCount = Integer.parseInt(value);
                    case "--concurrency" -> concurrency = value;
                    case "--rate" -> builder.rate(Double.parseDouble(value));
                    case "--time-limit" -> builder.timeLimitS(Double.parseDouble(value));
                    case "--latency" -> latencyMs = Double.parseDouble(value);
                    case "--latency-dist" -> dist = LatencyDistribution.parse(value);
                    case "--nemesis" -> partition = parseNemesis(value);
                    case "--nemesis-interval" -> interval = Double.parseDouble(value);
                    case "--seed" -> builder.seed(Long.parseLong(value));
                    case "--key-count" -> keyCount = Integer.parseInt(value);
                    case "--max-writes-per-key" -> maxWrites = Integer.parseInt(value);
                    case "--recovery-wait" -> recoveryS = Double.parseDouble(value);
                    case "--final-polls" -> finalPollsS = Double.parseDouble(value);
                    case "--availability" -> availability = Double.parseDouble(value);
                    case "--log-dir" -> logDir = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + flag);
                }
            }
            if (bin == null) {
                throw new IllegalArgumentException("--bin is required");
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(bin).toAbsolutePath().normalize().toString());
            command.addAll(nodeArgs);
            builder.command(command).nodeCount(nodeCount).concurrency(parseConcurrency(concurrency, nodeCount))
                .latency(latencyMs, dist).partition(partition, interval).keys(keyCount, maxWrites)
                .finalPhase(recoveryS, finalPollsS).logs(logDir, logStderr);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            return EXIT_BAD_ARGS;
        }
        HarnessConfig config;
        try {
            config = builder.build();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return EXIT_BAD_ARGS;
        }
        HarnessResult result;
        try {
            result = Harness.run(config);
        } catch (IOException e) {
            System.err.println("cannot run the nodes: " + e.getMessage());
            return HarnessResult.EXIT_CRASHED;
        }
        String report = Report.format(result);
        out.print(report);
        writeStore(config.logDir(), result, report);
        int exit = result.exitCode();
        if (exit == 0 && availability >= 0 && result.stats().okFraction() < availability) {
            out.printf(Locale.ROOT, "availability %.4f is below the required %.4f%n", result.stats().okFraction(),
                availability);
            exit = 1;
        }
        return exit;
    }

    /** Writes {@code history.txt} (one operation per line) and {@code results.txt} next to the node logs. */
    private static void writeStore(Path dir, HarnessResult result, String report) throws IOException {
        Files.createDirectories(dir);
        try (Writer history = Files.newBufferedWriter(dir.resolve("history.txt"), StandardCharsets.UTF_8)) {
            for (KafkaOp op : result.history()) {
                history.write(op.toString());
                history.write('\n');
            }
        }
        Files.writeString(dir.resolve("results.txt"), report, StandardCharsets.UTF_8);
    }

    private static boolean parseNemesis(String value) {
        for (String fault : value.split(",")) {
            if (!"partition".equals(fault.trim())) {
                throw new IllegalArgumentException("unsupported nemesis " + fault
                    + " (Maelstrom accepts only partition)");
            }
        }
        return true;
    }

    /** Maelstrom's concurrency syntax: {@code 6}, or {@code 2n} meaning 2 x node count. */
    static int parseConcurrency(String value, int nodeCount) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.endsWith("n")) {
            String factor = text.substring(0, text.length() - 1);
            return (factor.isEmpty() ? 1 : Integer.parseInt(factor)) * nodeCount;
        }
        return Integer.parseInt(text);
    }
}
