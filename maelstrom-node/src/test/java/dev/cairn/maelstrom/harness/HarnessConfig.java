package dev.cairn.maelstrom.harness;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything a harness run needs; names follow Maelstrom's CLI flags. Build it with {@link #builder()}.
 *
 * @param command            the node command line (executable and arguments)
 * @param nodeCount          nodes {@code n0 .. n(N-1)}
 * @param concurrency        logical clients (Maelstrom's {@code --concurrency}, already multiplied out)
 * @param rate               target client operations per second across all clients
 * @param timeLimitS         length of the main phase
 * @param latencyMs          mean added delay of node-to-node messages
 * @param latencyDist        the delay distribution
 * @param partition          whether the partition nemesis runs
 * @param nemesisIntervalS   mean seconds between partition start and stop
 * @param seed               seeds the workload, the nemesis and the latency draws
 * @param keyCount           active keys at a time (Elle's default for its exponential key distribution is 10)
 * @param maxWritesPerKey    sends per key before the key is retired (Maelstrom's default is 16)
 * @param recoveryWaitS      the wait after healing before the final polls (Maelstrom: 10 s)
 * @param finalPollsS        the bound on the final-poll phase (Maelstrom: 10 s)
 * @param rpcTimeoutMs       client RPC timeout (Maelstrom: 5000 ms)
 * @param logDir             where node stderr logs go ({@code <logDir>/<node>.log})
 * @param logStderr          also echo node stderr to the harness's stderr
 */
public record HarnessConfig(List<String> command, int nodeCount, int concurrency, double rate, double timeLimitS,
                            double latencyMs, LatencyDistribution latencyDist, boolean partition,
                            double nemesisIntervalS, long seed, int keyCount, int maxWritesPerKey,
                            double recoveryWaitS, double finalPollsS, long rpcTimeoutMs, Path logDir,
                            boolean logStderr) {

    /** Bound on nodes; the partition shapes and the client binding need at least one. */
    public static final int NODE_COUNT_MAX = 64;
    /** Bound on logical clients (one thread each). */
    public static final int CONCURRENCY_MAX = 1024;
    /** Bound on the target rate. */
    public static final double RATE_MAX = 100_000;

    public HarnessConfig {
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("the node command (--bin) is required");
        }
        check(nodeCount >= 1 && nodeCount <= NODE_COUNT_MAX, "node count " + nodeCount + " not in 1.."
            + NODE_COUNT_MAX);
        check(concurrency >= 1 && concurrency <= CONCURRENCY_MAX, "concurrency " + concurrency + " not in 1.."
            + CONCURRENCY_MAX);
        check(rate >= 0 && rate <= RATE_MAX, "rate " + rate + " not in 0.." + RATE_MAX);
        check(timeLimitS > 0, "time limit " + timeLimitS + " must be positive");
        check(latencyMs >= 0, "latency " + latencyMs + " must not be negative");
        check(nemesisIntervalS > 0, "nemesis interval " + nemesisIntervalS + " must be positive");
        check(keyCount >= 1, "key count " + keyCount + " must be positive");
        check(maxWritesPerKey >= 1, "max writes per key " + maxWritesPerKey + " must be positive");
        check(recoveryWaitS >= 0 && finalPollsS >= 0, "recovery wait " + recoveryWaitS + " and final polls "
            + finalPollsS + " must not be negative");
        check(rpcTimeoutMs > 0, "rpc timeout " + rpcTimeoutMs + " must be positive");
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder with Maelstrom's defaults (concurrency defaults to 2n when left at 0). */
    public static final class Builder {
        private List<String> command = List.of();
        private int nodeCount = 1;
        private int concurrency;
        private double rate = 5;
        private double timeLimitS = 60;
        private double latencyMs;
        private LatencyDistribution latencyDist = LatencyDistribution.CONSTANT;
        private boolean partition;
        private double nemesisIntervalS = 10;
        private long seed = 1;
        private int keyCount = 10;
        private int maxWritesPerKey = 16;
        private double recoveryWaitS = 10;
        private double finalPollsS = 10;
        private long rpcTimeoutMs = 5_000;
        private Path logDir = Path.of("harness-logs");
        private boolean logStderr;

        public Builder command(List<String> value) {
            command = value;
            return this;
        }

        public Builder nodeCount(int value) {
            nodeCount = value;
            return this;
        }

        public Builder concurrency(int value) {
            concurrency = value;
            return this;
        }

        public Builder rate(double value) {
            rate = value;
            return this;
        }

        public Builder timeLimitS(double value) {
            timeLimitS = value;
            return this;
        }

        public Builder latency(double meanMs, LatencyDistribution dist) {
            latencyMs = meanMs;
            latencyDist = dist;
            return this;
        }

        public Builder partition(boolean enabled, double intervalS) {
            partition = enabled;
            nemesisIntervalS = intervalS;
            return this;
        }

        public Builder seed(long value) {
            seed = value;
            return this;
        }

        public Builder keys(int count, int maxWrites) {
            keyCount = count;
            maxWritesPerKey = maxWrites;
            return this;
        }

        public Builder finalPhase(double recoveryS, double pollsS) {
            recoveryWaitS = recoveryS;
            finalPollsS = pollsS;
            return this;
        }

        public Builder rpcTimeoutMs(long value) {
            rpcTimeoutMs = value;
            return this;
        }

        public Builder logs(Path dir, boolean echoStderr) {
            logDir = dir;
            logStderr = echoStderr;
            return this;
        }

        public HarnessConfig build() {
            int clients = concurrency == 0 ? 2 * nodeCount : concurrency;
            return new HarnessConfig(command, nodeCount, clients, rate, timeLimitS, latencyMs, latencyDist, partition,
                nemesisIntervalS, seed, keyCount, maxWritesPerKey, recoveryWaitS, finalPollsS, rpcTimeoutMs, logDir,
                logStderr);
        }
    }
}
