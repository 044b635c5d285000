package dev.cairn.bench.load;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts records, bytes and errors of one role and records their latencies, from any number of threads (client
 * callback threads included) without locks.
 */
final class LatencyRecorder {
    /** Latencies above this are recorded as this: a minute is far beyond any request timeout the tool sets. */
    static final long LATENCY_US_MAX = TimeUnit.MINUTES.toMicros(1);
    private static final int SIGNIFICANT_DIGITS = 3;

    private final Recorder recorder = new Recorder(LATENCY_US_MAX, SIGNIFICANT_DIGITS);
    private final LongAdder records = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder errors = new LongAdder();

    void onRecord(long latencyNs, int valueBytes) {
        recorder.recordValue(Math.max(0, Math.min(LATENCY_US_MAX, TimeUnit.NANOSECONDS.toMicros(latencyNs))));
        records.increment();
        bytes.add(valueBytes);
    }

    /** Counts records that have no latency of their own (e.g. the records of one consumer poll). */
    void onRecords(long count, long valueBytes) {
        records.add(count);
        bytes.add(valueBytes);
    }

    void onLatency(long latencyNs) {
        recorder.recordValue(Math.max(0, Math.min(LATENCY_US_MAX, TimeUnit.NANOSECONDS.toMicros(latencyNs))));
    }

    void onError() {
        errors.increment();
    }

    long records() {
        return records.sum();
    }

    RoleResult result(String role, long elapsedNs) {
        Histogram histogram = recorder.getIntervalHistogram();
        return new RoleResult(role, records.sum(), bytes.sum(), elapsedNs, errors.sum(), histogram);
    }
}
