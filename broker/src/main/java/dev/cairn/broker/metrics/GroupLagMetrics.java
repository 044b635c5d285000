package dev.cairn.broker.metrics;

import dev.cairn.broker.partition.Partition;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Consumer-group lag per partition, {@code cairn_consumer_group_lag{group,topic,partition}}: for each partition this
 * broker leads, each group with a committed offset there, the high watermark minus that offset. Every partition's
 * leader reports its own partitions, so a scrape of every broker covers the cluster once. Refreshed on a timer (the
 * offsets are read from the partitions' stores), at most {@link #SERIES_MAX} series, the rest left out and counted in
 * {@code cairn_consumer_group_lag_series_dropped}.
 */
public final class GroupLagMetrics {
    /** Series reported at most: one per (group, led partition). */
    public static final int SERIES_MAX = 10_000;
    private final MultiGauge lag;
    private volatile long dropped;

    public GroupLagMetrics(BrokerMetrics metrics) {
        this.lag = MultiGauge.builder("cairn.consumer.group.lag")
                .description("Records between a group's committed offset and the partition's high watermark, "
                        + "reported by the partition's leader")
                .register(metrics.registry());
        metrics.gauge("cairn.consumer.group.lag.series.dropped", "Group lag series left out beyond "
                + SERIES_MAX, () -> dropped);
    }

    /** Recomputes the series from the partitions this broker leads. */
    public void refresh(Collection<Partition> ledPartitions) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        long over = 0;
        for (Partition partition : ledPartitions) {
            long highWatermark = partition.highWatermark();
            for (var committed : partition.committedOffsets().entrySet()) {
                if (rows.size() >= SERIES_MAX) {
                    over++;
                    continue;
                }
                long value = Math.max(0, highWatermark - committed.getValue().offset());
                rows.add(MultiGauge.Row.of(Tags.of("group", committed.getKey(), "topic", partition.topic(),
                        "partition", Integer.toString(partition.partition())), value));
            }
        }
        dropped = over;
        lag.register(rows, true);
    }
}
