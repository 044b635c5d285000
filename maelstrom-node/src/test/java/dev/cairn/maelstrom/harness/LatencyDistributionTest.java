package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Maelstrom's --latency-dist: constant, uniform over 0..2 x mean, exponential; all with the given mean. */
class LatencyDistributionTest {

    private static final int SAMPLES = 200_000;

    private static double mean(LatencyDistribution dist, double meanMs) {
        Random random = new Random(5);
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double sample = dist.sampleMs(meanMs, random);
            assertTrue(sample >= 0, "no negative delays");
            if (dist == LatencyDistribution.UNIFORM) {
                assertTrue(sample <= 2 * meanMs);
            }
            sum += sample;
        }
        return sum / SAMPLES;
    }

    @Test
    void everyDistributionHasTheRequestedMean() {
        assertEquals(10, mean(LatencyDistribution.CONSTANT, 10), 1e-9);
        assertEquals(10, mean(LatencyDistribution.UNIFORM, 10), 0.1);
        assertEquals(10, mean(LatencyDistribution.EXPONENTIAL, 10), 0.1);
    }

    @Test
    void zeroLatencyMeansNoDelayAndNamesParse() {
        assertEquals(0, LatencyDistribution.EXPONENTIAL.sampleMs(0, new Random(1)));
        assertEquals(LatencyDistribution.EXPONENTIAL, LatencyDistribution.parse("exponential"));
    }
}
