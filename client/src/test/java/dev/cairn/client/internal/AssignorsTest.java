package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Range and cooperative-sticky give Kafka's shapes of assignment. */
class AssignorsTest {
    private static Subscription subscription(List<TopicPartition> owned, int generation) {
        return new Subscription(List.of("t"), null, owned, generation, null);
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition("t", partition);
    }

    @Test
    void rangeGivesConsecutiveRangesTheFirstMembersOneMore() {
        Map<String, List<TopicPartition>> assignment = new RangeAssignor().assign(Map.of("t", 7), Map.of(
                "b", subscription(List.of(), -1), "a", subscription(List.of(), -1), "c", subscription(List.of(), -1)));
        assertEquals(List.of(tp(0), tp(1), tp(2)), assignment.get("a"));
        assertEquals(List.of(tp(3), tp(4)), assignment.get("b"));
        assertEquals(List.of(tp(5), tp(6)), assignment.get("c"));
    }

    @Test
    void cooperativeStickyKeepsOwnedAndHoldsBackMovingPartitionsForOneRound() {
        CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
        List<TopicPartition> all = List.of(tp(0), tp(1), tp(2), tp(3), tp(4), tp(5));
        Map<String, List<TopicPartition>> first = assignor.assign(Map.of("t", 6), Map.of(
                "a", subscription(all, 1), "b", subscription(List.of(), -1)));
        assertEquals(3, first.get("a").size(), "a keeps half of what it owned");
        assertTrue(all.containsAll(first.get("a")));
        assertEquals(List.of(), first.get("b"), "b gets nothing until a has revoked");
        Map<String, List<TopicPartition>> second = assignor.assign(Map.of("t", 6), Map.of(
                "a", subscription(first.get("a"), 2), "b", subscription(List.of(), -1)));
        assertEquals(first.get("a"), second.get("a"), "sticky");
        assertEquals(3, second.get("b").size());
    }

    @Test
    void cooperativeStickyResolvesDoubleClaimsByGeneration() {
        Map<String, List<TopicPartition>> assignment = new CooperativeStickyAssignor().assign(Map.of("t", 2), Map.of(
                "a", subscription(List.of(tp(0), tp(1)), 3), "b", subscription(List.of(tp(0)), 2)));
        assertEquals(List.of(tp(0)), assignment.get("a"));
        assertEquals(List.of(), assignment.get("b"), "tp1 moves to b only next round");
    }
}
