package dev.cairn.broker.raft;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis's metric registries as Cairn runs them, found by Ratis through {@code java.util.ServiceLoader}
 * (META-INF/services). Ratis's stock implementation (ratis-metrics-default, Dropwizard) keeps an exponentially
 * decaying reservoir, a lock and a skip list of up to 1,028 samples behind every timer of every group, and updates
 * several per produced batch: in a JFR profile of one broker under Kafka's producer (1 KiB records, 8 partitions)
 * those updates took 17.6% of the broker's CPU, more than Cairn's whole produce handler. Here a timer is a count and
 * a sum of nanoseconds, a counter a {@link java.util.concurrent.atomic.LongAdder}, a gauge a stored supplier
 * ({@link LeanRatisMetricRegistry}); nothing is reported to JMX or a console.
 *
 * <p>Registries are reference-counted as Ratis expects: {@link #create} returns the existing registry for an info
 * and counts one more user, {@link #remove} drops it when the last user is gone.
 */
public final class LeanRatisMetrics extends MetricRegistries {
    private final Map<MetricRegistryInfo, Entry> registries = new ConcurrentHashMap<>();

    private static final class Entry {
        final LeanRatisMetricRegistry registry;
        int users;

        Entry(LeanRatisMetricRegistry registry) {
            this.registry = registry;
        }
    }

    /** ServiceLoader's constructor. */
    public LeanRatisMetrics() {
    }

    @Override
    public void clear() {
        registries.clear();
    }

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        Entry entry = registries.compute(info, (key, existing) -> {
            Entry e = existing != null ? existing : new Entry(new LeanRatisMetricRegistry(key));
            e.users++;
            return e;
        });
        return entry.registry;
    }

    @Override
    public boolean remove(MetricRegistryInfo key) {
        boolean[] removed = {false};
        registries.computeIfPresent(key, (k, entry) -> {
            entry.users--;
            removed[0] = entry.users <= 0;
            return removed[0] ? null : entry;
        });
        return removed[0];
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.ofNullable(registries.get(info)).map(entry -> entry.registry);
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.copyOf(registries.keySet());
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.copyOf(registries.values().stream().map(entry -> (RatisMetricRegistry) entry.registry).toList());
    }

    @Override
    public void addReporterRegistration(Consumer<RatisMetricRegistry> reporterRegistration,
            Consumer<RatisMetricRegistry> stopReporter) {
        // No reporters: Cairn publishes its own metrics (broker.metrics).
    }

    @Override
    public void enableJmxReporter() {
        // No reporters: Cairn publishes its own metrics (broker.metrics).
    }

    @Override
    public void enableConsoleReporter(TimeDuration consoleReportRate) {
        // No reporters: Cairn publishes its own metrics (broker.metrics).
    }
}
