package dev.cairn.broker.cluster;

import dev.cairn.broker.config.Limits;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * The published leadership state of every partition ({@link MetadataImage#partitionStates()}): an immutable map in
 * which a change to one partition copies that topic's states, not all of them. The metadata group applies one
 * {@code UpdatePartitionState} per leadership or in-sync change of a partition, and a copy of the whole map per change
 * made the creation of a 3,000-partition topic cost each broker seconds of CPU in copies alone (quadratic in the
 * partition count).
 *
 * <p>Held per topic as an array indexed by partition number; no array is written after it was published.
 */
public final class PartitionStates extends AbstractMap<TopicPartition, PartitionState> {
    public static final PartitionStates EMPTY = new PartitionStates(Map.of(), 0);

    private final Map<String, PartitionState[]> byTopic;
    private final int size;

    private PartitionStates(Map<String, PartitionState[]> byTopic, int size) {
        this.byTopic = byTopic;
        this.size = size;
    }

    /**
     * These states, as an immutable map ({@code states} itself when it is one already).
     *
     * @throws IllegalArgumentException for a partition number outside [0, {@link Limits#PARTITIONS_PER_TOPIC_MAX})
     */
    public static PartitionStates copyOf(Map<TopicPartition, PartitionState> states) {
        if (states instanceof PartitionStates same) {
            return same;
        }
        Map<String, Integer> lengths = new HashMap<>();
        for (TopicPartition tp : states.keySet()) {
            lengths.merge(tp.topic(), checkedPartition(tp) + 1, Math::max);
        }
        Map<String, PartitionState[]> byTopic = new HashMap<>();
        lengths.forEach((topic, length) -> byTopic.put(topic, new PartitionState[length]));
        states.forEach((tp, state) -> byTopic.get(tp.topic())[tp.partition()] = Objects.requireNonNull(state));
        return new PartitionStates(Collections.unmodifiableMap(byTopic), states.size());
    }

    /** This map with {@code tp}'s state set to {@code state}. */
    public PartitionStates with(TopicPartition tp, PartitionState state) {
        Objects.requireNonNull(state);
        int partition = checkedPartition(tp);
        PartitionState[] before = byTopic.get(tp.topic());
        PartitionState[] after = before == null ? new PartitionState[partition + 1]
                : Arrays.copyOf(before, Math.max(before.length, partition + 1));
        boolean added = after[partition] == null;
        after[partition] = state;
        Map<String, PartitionState[]> next = new HashMap<>(byTopic);
        next.put(tp.topic(), after);
        return new PartitionStates(Collections.unmodifiableMap(next), added ? size + 1 : size);
    }

    private static int checkedPartition(TopicPartition tp) {
        if (tp.partition() < 0 || tp.partition() >= Limits.PARTITIONS_PER_TOPIC_MAX) {
            throw new IllegalArgumentException("partition " + tp + " outside [0, " + Limits.PARTITIONS_PER_TOPIC_MAX
                    + ")");
        }
        return tp.partition();
    }

    @Override
    public PartitionState get(Object key) {
        if (!(key instanceof TopicPartition tp)) {
            return null;
        }
        PartitionState[] states = byTopic.get(tp.topic());
        return states == null || tp.partition() < 0 || tp.partition() >= states.length ? null
                : states[tp.partition()];
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<TopicPartition, PartitionState>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<TopicPartition, PartitionState>> iterator() {
                return new Entries();
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** Topic by topic, partitions in order; only partitions that have a state. */
    private final class Entries implements Iterator<Entry<TopicPartition, PartitionState>> {
        private final Iterator<Map.Entry<String, PartitionState[]>> topics = byTopic.entrySet().iterator();
        private String topic;
        private PartitionState[] states = new PartitionState[0];
        private int next;

        @Override
        public boolean hasNext() {
            while (true) {
                while (next < states.length) {
                    if (states[next] != null) {
                        return true;
                    }
                    next++;
                }
                if (!topics.hasNext()) {
                    return false;
                }
                Map.Entry<String, PartitionState[]> entry = topics.next();
                topic = entry.getKey();
                states = entry.getValue();
                next = 0;
            }
        }

        @Override
        public Entry<TopicPartition, PartitionState> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            int partition = next++;
            return new SimpleImmutableEntry<>(new TopicPartition(topic, partition), states[partition]);
        }
    }
}
