package dev.cairn.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReplicaCountsTest {

    @Test
    void countsHostedLedAndUnderReplicatedPartitionsOfOneBroker() {
        // orders: p0 on 1,2,3 led here with a full ISR; p1 on 1,2,3 led here with one follower out; p2 on 2,3 only.
        TopicInfo orders = new TopicInfo("orders", UUID.randomUUID(),
                List.of(List.of(1, 2, 3), List.of(1, 2, 3), List.of(2, 3)), Map.of());
        TopicInfo audit = new TopicInfo("audit", UUID.randomUUID(), List.of(List.of(3, 1)), Map.of());
        TreeMap<String, TopicInfo> topics = new TreeMap<>(Map.of("orders", orders, "audit", audit));
        Map<TopicPartition, PartitionState> states = Map.of(
                new TopicPartition("orders", 0), new PartitionState(1, 4, List.of(1, 2, 3)),
                new TopicPartition("orders", 1), new PartitionState(1, 4, List.of(1, 3)),
                new TopicPartition("audit", 0), new PartitionState(3, 2, List.of(3)));
        MetadataImage image = new MetadataImage(10, new TreeMap<>(), topics, 0, states, Set.of(), null);
        Set<TopicPartition> ledHere = Set.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));

        ReplicaCounts counts = ReplicaCounts.of(image, 1, ledHere::contains);

        assertEquals(new ReplicaCounts(3, 2, 1), counts);
        assertEquals(new ReplicaCounts(0, 0, 0), ReplicaCounts.of(MetadataImage.EMPTY, 1, tp -> true));
    }
}
