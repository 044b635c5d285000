package dev.cairn.client.internal;

import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Kafka's "cooperative-sticky" assignor, in a simpler form with the same contract: the assignment is balanced
 * (member counts differ by at most one when all members subscribe to the same topics), members keep as many of
 * the partitions they own as balance allows, and a partition that moves from one member to another is left
 * unassigned for one round (KIP-429): its owner revokes it and rejoins, and the next round hands it on. That last
 * rule is what makes the protocol safe; a kafka-clients member relies on it whichever member leads.
 *
 * <p>UserData is the member's generation as an int32 (Kafka's {@code CooperativeStickyAssignor} user data v0);
 * the subscription's GenerationId field (v2+) carries it too and is preferred. When two members claim the same
 * partition, the one with the higher generation keeps it (the other's claim is stale).
 */
public final class CooperativeStickyAssignor implements PartitionAssignor {
    public static final String NAME = "cooperative-sticky";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean cooperative() {
        return true;
    }

    @Override
    public byte[] userData(int generationId) {
        return ByteBuffer.allocate(4).putInt(generationId).array();
    }

    private static int generationOf(Subscription subscription) {
        if (subscription.generationId() >= 0) {
            return subscription.generationId();
        }
        byte[] userData = subscription.userData();
        return userData != null && userData.length >= 4 ? ByteBuffer.wrap(userData).getInt() : -1;
    }

    @Override
    public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionCounts,
                                                    Map<String, Subscription> subscriptions) {
        List<TopicPartition> all = new ArrayList<>();
        new TreeMap<>(partitionCounts).forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                all.add(new TopicPartition(topic, p));
            }
        });
        Map<TopicPartition, String> owners = validOwners(partitionCounts, subscriptions);
        Map<String, List<TopicPartition>> assignment = new TreeMap<>();
        subscriptions.keySet().forEach(member -> assignment.put(member, new ArrayList<>()));
        keepOwned(all.size(), owners, assignment);
        List<TopicPartition> taken = new ArrayList<>();
        assignment.values().forEach(taken::addAll);
        for (TopicPartition partition : all) {
            if (taken.contains(partition)) {
                continue;
            }
            String least = null;
            for (Map.Entry<String, List<TopicPartition>> member : assignment.entrySet()) {
                boolean eligible = subscriptions.get(member.getKey()).topics().contains(partition.topic());
                if (eligible && (least == null || member.getValue().size() < assignment.get(least).size())) {
                    least = member.getKey();
                }
            }
            if (least != null) {
                assignment.get(least).add(partition);
            }
        }
        // KIP-429: a partition owned by someone else is not handed over in this round.
        assignment.forEach((member, partitions) -> partitions.removeIf(partition -> {
            String owner = owners.get(partition);
            return owner != null && !owner.equals(member);
        }));
        return assignment;
    }

    /** Owned partitions that still exist and are still subscribed to; on a conflict the newest generation wins. */
    private static Map<TopicPartition, String> validOwners(Map<String, Integer> partitionCounts,
                                                         Map<String, Subscription> subscriptions) {
        Map<TopicPartition, String> owners = new HashMap<>();
        Map<TopicPartition, Integer> ownerGeneration = new HashMap<>();
        new TreeMap<>(subscriptions).forEach((member, subscription) -> {
            int generation = generationOf(subscription);
            for (TopicPartition partition : subscription.ownedPartitions()) {
                Integer count = partitionCounts.get(partition.topic());
                if (count == null || partition.partition() >= count
                        || !subscription.topics().contains(partition.topic())) {
                    continue;
                }
                Integer previous = ownerGeneration.get(partition);
                if (previous == null || generation > previous) {
                    owners.put(partition, member);
                    ownerGeneration.put(partition, generation);
                }
            }
        });
        return owners;
    }

    /**
     * Each member keeps up to {@code total / members} of its owned partitions, and one more while the
     * {@code total % members} larger shares last; members owning the most go first.
     */
    private static void keepOwned(int total, Map<TopicPartition, String> owners,
                                  Map<String, List<TopicPartition>> assignment) {
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        assignment.keySet().forEach(member -> owned.put(member, new ArrayList<>()));
        owners.forEach((partition, member) -> owned.get(member).add(partition));
        int members = assignment.size();
        int minQuota = total / members;
        int largerShares = total % members;
        List<String> order = new ArrayList<>(owned.keySet());
        order.sort(Comparator.comparingInt((String member) -> -owned.get(member).size())
                .thenComparing(Comparator.naturalOrder()));
        for (String member : order) {
            List<TopicPartition> mine = owned.get(member);
            mine.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            int quota = minQuota;
            if (mine.size() > minQuota && largerShares > 0) {
                quota++;
                largerShares--;
            }
            assignment.get(member).addAll(mine.subList(0, Math.min(quota, mine.size())));
        }
    }
}
