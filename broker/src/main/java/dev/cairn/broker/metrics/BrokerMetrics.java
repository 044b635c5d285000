package dev.cairn.broker.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * The broker's meters in one Prometheus registry. Meters named {@code cairn.x.y} appear in the scrape as
 * {@code cairn_x_y} (counters with {@code _total}, timers in seconds as {@code _seconds_count},
 * {@code _seconds_sum}, {@code _seconds_max}). Gauges and function counters read live state at scrape time; the
 * request and commit timers are updated on the request path.
 */
public final class BrokerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Timer raftCommitLatency;
    /** Micrometer holds gauge and function-counter sources weakly; these strong references keep them alive. */
    private final List<LongSupplier> sources = new CopyOnWriteArrayList<>();

    /** Listens to the JVM's collections; closed with the broker. */
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

    public BrokerMetrics() {
        raftCommitLatency = Timer.builder("cairn.raft.commit.latency")
                .description("Time from submitting a command to a partition's Raft group to its commit and apply")
                .register(registry);
        // The JVM as operators watch it: heap and direct buffers (jvm_memory_*, jvm_buffer_*), collections
        // (jvm_gc_*), threads, classes, CPU and uptime, open file descriptors.
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    /** Stops listening to the JVM's collections. */
    public void close() {
        gcMetrics.close();
    }

    /** A value read at scrape time, e.g. open connections. */
    public void gauge(String name, String description, LongSupplier value) {
        sources.add(value);
        Gauge.builder(name, value, v -> v.getAsLong()).description(description).register(registry);
    }

    /** A monotonic total read at scrape time, e.g. bytes received. */
    public void counter(String name, String description, LongSupplier total) {
        sources.add(total);
        FunctionCounter.builder(name, total, t -> t.getAsLong()).description(description).register(registry);
    }

    Timer raftCommitLatency() {
        return raftCommitLatency;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }
}
