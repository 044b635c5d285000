package dev.cairn.maelstrom.harness;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * Maelstrom's {@code --latency-dist}: how the added delay of a node-to-node message is drawn around the
 * {@code --latency} mean (in milliseconds).
 */
public enum LatencyDistribution {
    /** Every message is delayed by exactly the mean. */
    CONSTANT,
    /** Uniform over 0 .. 2 x mean. */
    UNIFORM,
    /** Exponential with the given mean. */
    EXPONENTIAL;

    /** Draws one delay in milliseconds; {@code random} is not thread-safe, so callers serialise access. */
    public double sampleMs(double meanMs, RandomGenerator random) {
        if (meanMs <= 0) {
            return 0;
        }
        return switch (this) {
            case CONSTANT -> meanMs;
            case UNIFORM -> random.nextDouble() * 2 * meanMs;
            case EXPONENTIAL -> -meanMs * Math.log(1 - random.nextDouble());
        };
    }

    /** Parses a CLI value such as {@code exponential}. */
    public static LatencyDistribution parse(String text) {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
    }
}
