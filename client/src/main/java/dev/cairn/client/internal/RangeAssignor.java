package dev.cairn.client.internal;

import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Kafka's "range" assignor (eager protocol): per topic, the members subscribing to it in member-id order take
 * consecutive ranges of partitions, the first {@code partitions % members} of them one partition more.
 */
public final class RangeAssignor implements PartitionAssignor {
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean cooperative() {
        return false;
    }

    @Override
    public byte[] userData(int generationId) {
        return null;
    }

    @Override
    public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionCounts,
                                                    Map<String, Subscription> subscriptions) {
        Map<String, List<TopicPartition>> assignment = new TreeMap<>();
        subscriptions.keySet().forEach(member -> assignment.put(member, new ArrayList<>()));
        for (Map.Entry<String, Integer> topic : new TreeMap<>(partitionCounts).entrySet()) {
            List<String> members = new ArrayList<>();
            subscriptions.forEach((member, subscription) -> {
                if (subscription.topics().contains(topic.getKey())) {
                    members.add(member);
                }
            });
            members.sort(null);
            if (members.isEmpty()) {
                continue;
            }
            int perMember = topic.getValue() / members.size();
            int withExtra = topic.getValue() % members.size();
            for (int i = 0; i < members.size(); i++) {
                int start = perMember * i + Math.min(i, withExtra);
                int length = perMember + (i < withExtra ? 1 : 0);
                for (int partition = start; partition < start + length; partition++) {
                    assignment.get(members.get(i)).add(new TopicPartition(topic.getKey(), partition));
                }
            }
        }
        return assignment;
    }
}
