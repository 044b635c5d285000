package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands leadership of the partitions this broker leads back to their preferred replicas (Kafka's auto balancing),
 * and away from replicas whose partition is offline here (a storage failure), as Kafka's controller moves leaders
 * off a failed log directory.
 */
public final class LeadershipBalancer {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipBalancer.class);
    /** A preferred replica must have answered its leader this recently to be handed leadership. */
    private static final long TRANSFER_FOLLOWER_RESPONSE_MS_MAX = 1_000;
    /** After a failed leadership transfer, the partition is not tried again for this long. */
    private static final long TRANSFER_BACKOFF_MS = 30_000;

    private final int nodeId;
    private final RaftHost host;
    private final LocalPartitionIndex index;
    private final Supplier<MetadataImage> images;
    /** Whether this broker's replica of a group (by group id) is offline. */
    private final Predicate<UUID> offline;
    private final Set<UUID> transfersInFlight = ConcurrentHashMap.newKeySet();
    /** Per group: no leadership transfer before this time (ms), after a transfer that failed. */
    private final Map<UUID, Long> transferNotBeforeMs = new ConcurrentHashMap<>();

    LeadershipBalancer(int nodeId, RaftHost host, LocalPartitionIndex index, Supplier<MetadataImage> image,
            Predicate<UUID> offline) {
        this.nodeId = nodeId;
        this.host = host;
        this.index = index;
        this.images = image;
        this.offline = offline;
    }

    /**
     * For each partition this broker leads while its replica here is offline (it serves no produce or fetch until
     * a restart), hands leadership to another replica that can take over (see {@link #readyToLead}), the preferred
     * ones first. Without this the partition stayed unavailable: Raft keeps an offline replica leading.
     */
    public void handOverOfflineLeaderships(long nowMs, long transferTimeoutMs) {
        MetadataImage image = images.get();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            RaftGroupId groupId = RaftGroupId.valueOf(entry.groupId());
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (topic.isEmpty() || !offline.test(entry.groupId())
                    || !host.role(groupId).map(GroupRole::isLeader).orElse(false)) {
                continue;
            }
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            for (int replica : topic.get().replicas().get(entry.partition())) {
                if (replica != nodeId && readyToLead(groupId, replica, image)) {
                    transfer(entry.groupId(), tp, replica, nowMs, transferTimeoutMs, "its replica here is offline");
                    break;
                }
            }
        }
    }

    /**
     * Preferred-leader balancing: for each partition this broker leads although another replica is its
     * preferred leader (the first in its replica list), hands leadership to that replica when it is in sync.
     * Replica assignment spreads preferred leaders, so this spreads leadership again after restarts.
     */
    public void balanceLeadership(long nowMs, long transferTimeoutMs) {
        MetadataImage image = images.get();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            RaftGroupId groupId = RaftGroupId.valueOf(entry.groupId());
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (topic.isEmpty() || !host.role(groupId).map(GroupRole::isLeader).orElse(false)) {
                continue;
            }
            int preferred = topic.get().replicas().get(entry.partition()).get(0);
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            if (preferred != nodeId && readyToLead(groupId, preferred, image)) {
                transfer(entry.groupId(), tp, preferred, nowMs, transferTimeoutMs, "its preferred replica");
            }
        }
    }

    /** Starts a transfer of {@code tp}'s leadership to {@code replica} unless one is in flight or backing off. */
    private void transfer(UUID groupId, TopicPartition tp, int replica, long nowMs, long transferTimeoutMs,
            String why) {
        if (nowMs < transferNotBeforeMs.getOrDefault(groupId, Long.MIN_VALUE) || !transfersInFlight.add(groupId)) {
            return;
        }
        host.transferLeadership(RaftGroupId.valueOf(groupId), Integer.toString(replica), transferTimeoutMs)
                .thenAccept(done -> {
                    transfersInFlight.remove(groupId);
                    if (done) {
                        LOG.info("{}: leadership handed to replica {} ({})", tp, replica, why);
                    } else {
                        transferNotBeforeMs.put(groupId, nowMs + TRANSFER_BACKOFF_MS);
                    }
                });
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
