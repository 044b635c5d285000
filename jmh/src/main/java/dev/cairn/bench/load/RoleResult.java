package dev.cairn.bench.load;

import org.HdrHistogram.Histogram;

/**
 * What one role (produce, consume or e2e) of a run achieved: counted records and bytes over the measured window,
 * failed operations, and the latency distribution in microseconds.
 *
 * @param role produce, consume or e2e
 * @param records records counted (after warm-up)
 * @param bytes value bytes of those records
 * @param elapsedNs the measured window
 * @param errors sends or polls that failed
 * @param latencyUs latencies in microseconds; what is measured depends on the role (see the README)
 */
public record RoleResult(String role, long records, long bytes, long elapsedNs, long errors, Histogram latencyUs) {
    private static final double NS_PER_SEC = 1e9;
    private static final double BYTES_PER_MB = 1024.0 * 1024.0;

    public double recordsPerSec() {
        return elapsedNs <= 0 ? 0 : records * NS_PER_SEC / elapsedNs;
    }

    public double megabytesPerSec() {
        return elapsedNs <= 0 ? 0 : bytes * NS_PER_SEC / elapsedNs / BYTES_PER_MB;
    }

    /** A latency percentile in milliseconds; 0 when nothing was recorded. */
    public double percentileMs(double percentile) {
        return latencyUs.getTotalCount() == 0 ? 0 : latencyUs.getValueAtPercentile(percentile) / 1000.0;
    }

    public double meanMs() {
        return latencyUs.getTotalCount() == 0 ? 0 : latencyUs.getMean() / 1000.0;
    }

    public double maxMs() {
        return latencyUs.getTotalCount() == 0 ? 0 : latencyUs.getMaxValue() / 1000.0;
    }
}
