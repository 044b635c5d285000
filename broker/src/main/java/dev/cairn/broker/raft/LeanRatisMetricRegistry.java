package dev.cairn.broker.raft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;

/**
 * One Ratis metric registry (a server, a group's log, a group's state machine...) at the cost of a few adders:
 * see {@link LeanRatisMetrics} for why.
 */
final class LeanRatisMetricRegistry implements RatisMetricRegistry {
    private final MetricRegistryInfo info;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Supplier<?>> gauges = new ConcurrentHashMap<>();

    LeanRatisMetricRegistry(MetricRegistryInfo info) {
        this.info = info;
    }

    /** Count and total time of the timed events. */
    static final class Timer implements Timekeeper {
        private final LongAdder count = new LongAdder();
        private final LongAdder nanos = new LongAdder();

        @Override
        public Context time() {
            long start = System.nanoTime();
            return () -> {
                long elapsed = System.nanoTime() - start;
                count.increment();
                nanos.add(elapsed);
                return elapsed;
            };
        }

        long count() {
            return count.sum();
        }

        long totalNanos() {
            return nanos.sum();
        }
    }

    /** A counter that may go up and down. */
    static final class Counter implements LongCounter {
        private final LongAdder value = new LongAdder();

        @Override
        public void inc(long n) {
            value.add(n);
        }

        @Override
        public void dec(long n) {
            value.add(-n);
        }

        @Override
        public long getCount() {
            return value.sum();
        }
    }

    @Override
    public Timekeeper timer(String name) {
        return timers.computeIfAbsent(name, n -> new Timer());
    }

    @Override
    public LongCounter counter(String name) {
        return counters.computeIfAbsent(name, n -> new Counter());
    }

    @Override
    public boolean remove(String name) {
        return timers.remove(name) != null | counters.remove(name) != null | gauges.remove(name) != null;
    }

    @Override
    public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
        gauges.computeIfAbsent(name, n -> gaugeSupplier.get());
    }

    @Override
    public MetricRegistryInfo getMetricRegistryInfo() {
        return info;
    }

    /** The current value of a gauge, or null when there is none by that name. */
    Object gaugeValue(String name) {
        Supplier<?> gauge = gauges.get(name);
        return gauge == null ? null : gauge.get();
    }
}
