package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.client.CairnNetworkException;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The leader's check for added partitions, as kafka-clients' ConsumerCoordinator compares its assignment snapshot
 * with the metadata refreshed every metadata.max.age.ms (classic protocol; kafka-clients ConsumerCoordinator
 * rejoinNeededOrPending).
 */
class PartitionCountWatchTest {
    private static final long MAX_AGE_MS = 1_000;
    private static final long BACKOFF_MS = 100;

    private final Map<String, Integer> counts = new HashMap<>();
    private final AtomicInteger refreshes = new AtomicInteger();
    private boolean failNext;
    private final PartitionCountWatch watch = new PartitionCountWatch(MAX_AGE_MS, BACKOFF_MS, topics -> {
        refreshes.incrementAndGet();
        if (failNext) {
            failNext = false;
            throw new CairnNetworkException("no broker reachable", null);
        }
        return metadata();
    });

    private ClusterMetadata metadata() {
        Map<String, ClusterMetadata.TopicMetadata> topics = new HashMap<>();
        counts.forEach((topic, count) -> {
            List<ClusterMetadata.PartitionMetadata> partitions = new ArrayList<>();
            for (int p = 0; p < count; p++) {
                partitions.add(new ClusterMetadata.PartitionMetadata(p, ErrorCode.NONE, 1, List.of(1), List.of(1)));
            }
            topics.put(topic, new ClusterMetadata.TopicMetadata(topic, ErrorCode.NONE, false, partitions));
        });
        return new ClusterMetadata(Map.of(), -1, null, topics, 0);
    }

    @Test
    void aMemberThatDidNotAssignWatchesNothing() {
        assertFalse(watch.maybeChanged(10 * MAX_AGE_MS));
        assertEquals(0, refreshes.get());
    }

    @Test
    void theLeaderLooksOncePerMaxAgeAndSeesAddedPartitions() {
        counts.put("t", 2);
        watch.onAssigned(List.of("t"), PartitionCountWatch.partitionCounts(metadata(), List.of("t")), 0);
        assertFalse(watch.maybeChanged(MAX_AGE_MS - 1), "not due yet");
        assertEquals(0, refreshes.get());
        assertFalse(watch.maybeChanged(MAX_AGE_MS), "due, unchanged");
        assertEquals(1, refreshes.get());
        counts.put("t", 4);
        assertFalse(watch.maybeChanged(MAX_AGE_MS + 1), "the next look is a whole max age later");
        assertTrue(watch.maybeChanged(2 * MAX_AGE_MS), "two partitions added");
    }

    @Test
    void aTopicCreatedAfterTheAssignmentCountsAsAChange() {
        watch.onAssigned(List.of("later"), PartitionCountWatch.partitionCounts(metadata(), List.of("later")), 0);
        assertFalse(watch.maybeChanged(MAX_AGE_MS));
        counts.put("later", 1);
        assertTrue(watch.maybeChanged(2 * MAX_AGE_MS));
    }

    @Test
    void aFailedLookIsRetriedAfterTheBackoffAndANewRebalanceStopsTheWatch() {
        counts.put("t", 2);
        watch.onAssigned(List.of("t"), Map.of("t", 2), 0);
        counts.put("t", 3);
        failNext = true;
        assertFalse(watch.maybeChanged(MAX_AGE_MS), "metadata unavailable");
        assertTrue(watch.maybeChanged(MAX_AGE_MS + BACKOFF_MS), "retried after the backoff");
        watch.clear();
        assertFalse(watch.maybeChanged(10 * MAX_AGE_MS), "not the leader until it assigns again");
    }
}
