package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands leadership of the partitions this broker leads back to their preferred replicas (Kafka's auto balancing). */
final class LeadershipBalancer {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipBalancer.class);
    /** A preferred replica must have answered its leader this recently to be handed leadership. */
    private static final long TRANSFER_FOLLOWER_RESPONSE_MS_MAX = 1_000;
    /** After a failed leadership transfer, the partition is not tried again for this long. */
    private static final long TRANSFER_BACKOFF_MS = 30_000;

    private final int nodeId;
    private final RaftHost host;
    private final LocalPartitionIndex index;
    private final Supplier<MetadataImage> images;
    private final Set<UUID> transfersInFlight = ConcurrentHashMap.newKeySet();
    /** Per group: no leadership transfer before this time (ms), after a transfer that failed. */
    private final Map<UUID, Long> transferNotBeforeMs = new ConcurrentHashMap<>();

    LeadershipBalancer(int nodeId, RaftHost host, LocalPartitionIndex index, Supplier<MetadataImage> image) {
        this.nodeId = nodeId;
        this.host = host;
        this.index = index;
        this.images = image;
    }

    /**
     * Preferred-leader balancing: for each partition this broker leads although another replica is its
     * preferred leader (the first in its replica list), hands leadership to that replica when it is in sync.
     * Replica assignment spreads preferred leaders, so this spreads leadership again after restarts.
     */
    void balanceLeadership(long nowMs, long transferTimeoutMs) {
        MetadataImage image = images.get();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            RaftGroupId groupId = RaftGroupId.valueOf(entry.groupId());
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (topic.isEmpty() || !host.role(groupId).map(GroupRole::isLeader).orElse(false)
                    || nowMs < transferNotBeforeMs.getOrDefault(entry.groupId(), Long.MIN_VALUE)) {
                continue;
            }
            int preferred = topic.get().replicas().get(entry.partition()).get(0);
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            if (preferred == nodeId || !readyToLead(groupId, preferred, image)
                    || !transfersInFlight.add(entry.groupId())) {
                continue;
            }
            host.transferLeadership(groupId, Integer.toString(preferred), transferTimeoutMs).thenAccept(done -> {
                transfersInFlight.remove(entry.groupId());
                if (done) {
                    LOG.info("{}: leadership handed to its preferred replica {}", tp, preferred);
                } else {
                    transferNotBeforeMs.put(entry.groupId(), nowMs + TRANSFER_BACKOFF_MS);
                }
            });
        }
    }

    /**
     * Whether {@code replica} can take over right now. A leader transferring leadership refuses writes until the
     * transfer ends, so handing it to a replica that is gone would stall the partition: the replica must not be
     * marked dead, must have answered the leader within {@link #TRANSFER_FOLLOWER_RESPONSE_MS_MAX}, and must have
     * caught up with the leader's commit index. (The ISR alone is not enough: a stopped follower stays in it for
     * up to replica.lag.time.max.ms.)
     */
    private boolean readyToLead(RaftGroupId groupId, int replica, MetadataImage image) {
        if (image.deadBrokers().contains(replica)) {
            return false;
        }
        Optional<ReplicationStatus> status = host.replicationStatus(groupId);
        if (status.isEmpty()) {
            return false;
        }
        ReplicationStatus.Follower follower = status.get().followers().get(Integer.toString(replica));
        return follower != null && follower.lastResponseElapsedMs() <= TRANSFER_FOLLOWER_RESPONSE_MS_MAX
                && follower.commitIndex() >= status.get().leaderCommitIndex();
    }
}
