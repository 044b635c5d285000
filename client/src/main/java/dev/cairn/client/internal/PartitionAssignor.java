package dev.cairn.client.internal;

import dev.cairn.client.CairnConfigException;
import dev.cairn.client.TopicPartition;
import dev.cairn.client.internal.ConsumerProtocolCodec.Subscription;
import java.util.List;
import java.util.Map;

/**
 * A client-side assignor of the classic group protocol: the group leader runs it over every member's subscription
 * and sends the result through SyncGroup. The names are Kafka's, so a group can mix Cairn and kafka-clients members.
 */
public interface PartitionAssignor {
    /** The protocol name in JoinGroup ("range", "cooperative-sticky"). */
    String name();

    /** True for the cooperative rebalance protocol (members give up only partitions that move, then rejoin). */
    boolean cooperative();

    /** The UserData of this member's subscription. */
    byte[] userData(int generationId);

    /**
     * Assigns partitions to members.
     *
     * @param partitionCounts partitions per topic, for every topic some member subscribes to and that exists
     * @param subscriptions   by member id
     * @return the partitions of each member id; every member id has an entry, maybe empty
     */
    Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionCounts,
                                             Map<String, Subscription> subscriptions);

    static PartitionAssignor forName(String name) {
        if (name.equals(RangeAssignor.NAME)) {
            return new RangeAssignor();
        }
        if (name.equals(CooperativeStickyAssignor.NAME)) {
            return new CooperativeStickyAssignor();
        }
        throw new CairnConfigException("unknown partition assignor '" + name + "'");
    }
}
