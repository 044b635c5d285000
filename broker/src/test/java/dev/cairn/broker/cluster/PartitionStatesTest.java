package dev.cairn.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.Limits;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PartitionStatesTest {
    private static PartitionState state(int leader, int epoch) {
        return new PartitionState(leader, epoch, List.of(leader));
    }

    @Test
    void holdsWhatAHashMapWouldAfterAnyMixOfChanges() {
        Random random = new Random(7);
        Map<TopicPartition, PartitionState> expected = new HashMap<>();
        PartitionStates states = PartitionStates.EMPTY;
        for (int i = 0; i < 2_000; i++) {
            TopicPartition tp = new TopicPartition("t" + random.nextInt(5), random.nextInt(40));
            PartitionState next = state(random.nextInt(3), i);
            expected.put(tp, next);
            states = states.with(tp, next);
            assertEquals(expected.size(), states.size());
        }
        assertEquals(expected, states);
        assertEquals(states, expected);
        assertEquals(expected.hashCode(), states.hashCode());
        assertEquals(expected.size(), states.entrySet().size());
        Map<TopicPartition, PartitionState> iterated = new HashMap<>();
        states.forEach(iterated::put);
        assertEquals(expected, iterated);
        assertEquals(expected, PartitionStates.copyOf(expected));
    }

    @Test
    void aChangeLeavesTheMapItWasMadeFromAsItWas() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders7 = new TopicPartition("orders", 7);
        PartitionStates before = PartitionStates.EMPTY.with(orders0, state(1, 1));
        PartitionStates after = before.with(orders0, state(2, 2)).with(orders7, state(3, 1));

        assertEquals(Map.of(orders0, state(1, 1)), before);
        assertEquals(Map.of(orders0, state(2, 2), orders7, state(3, 1)), after);
        assertNull(after.get(new TopicPartition("orders", 3)), "a partition between two with states has none");
        assertFalse(after.containsKey(new TopicPartition("orders", 3)));
        assertNull(after.get(new TopicPartition("orders", 8)));
        assertNull(after.get(new TopicPartition("other", 0)));
        assertNull(after.get("orders-0"));
        assertEquals(2, after.size());
    }

    @Test
    void copyOfAnImmutableOneIsItself() {
        PartitionStates states = PartitionStates.EMPTY.with(new TopicPartition("a", 1), state(1, 1));
        assertSame(states, PartitionStates.copyOf(states));
        assertTrue(PartitionStates.copyOf(Map.of()).isEmpty());
    }

    @Test
    void refusesPartitionNumbersNoTopicCanHave() {
        assertThrows(IllegalArgumentException.class,
                () -> PartitionStates.EMPTY.with(new TopicPartition("a", -1), state(1, 1)));
        assertThrows(IllegalArgumentException.class, () -> PartitionStates.EMPTY.with(
                new TopicPartition("a", Limits.PARTITIONS_PER_TOPIC_MAX), state(1, 1)));
        assertThrows(IllegalArgumentException.class, () -> PartitionStates.copyOf(
                Map.of(new TopicPartition("a", Integer.MAX_VALUE), state(1, 1))));
        assertThrows(NullPointerException.class,
                () -> PartitionStates.EMPTY.with(new TopicPartition("a", 0), null));
    }

    @Test
    void writtenOutEqualityAndHashAreTheRecordsOnes() {
        TopicPartition tp = new TopicPartition("orders", 3);
        assertEquals(new TopicPartition("orders", 3), tp);
        assertFalse(tp.equals(new TopicPartition("orders", 4)));
        assertFalse(tp.equals(new TopicPartition("order", 3)));
        assertEquals(31 * "orders".hashCode() + 3, tp.hashCode());
        assertEquals(new TopicPartition(null, 1), new TopicPartition(null, 1));
        assertEquals(1, new TopicPartition(null, 1).hashCode());
    }
}
