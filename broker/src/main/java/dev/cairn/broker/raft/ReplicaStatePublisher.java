package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes through the metadata group what only this broker sees: for each partition it leads, its leadership and
 * in-sync replicas, and, on the metadata group's leader, which registered brokers are dead. Called from the
 * broker's timer; every publication is one metadata command, at most one in flight per group.
 */
final class ReplicaStatePublisher {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaStatePublisher.class);
    private static final RaftGroupId METADATA_GROUP = RaftGroupId.valueOf(
            dev.cairn.broker.cluster.PartitionGroups.METADATA_GROUP_ID);

    private final int nodeId;
    private final RaftHost host;
    private final LocalPartitionIndex index;
    private final Supplier<MetadataImage> images;
    private final Function<MetadataCommand, CompletableFuture<MetadataResult>> submit;
    /** Per led group: when each follower was last caught up, and the leader's commit index at the last check. */
    private final Map<UUID, Map<String, Long>> lastCaughtUpMs = new ConcurrentHashMap<>();
    private final Map<UUID, Long> previousLeaderCommitIndex = new ConcurrentHashMap<>();
    private final Set<UUID> statePublishesInFlight = ConcurrentHashMap.newKeySet();

    ReplicaStatePublisher(int nodeId, RaftHost host, LocalPartitionIndex index, Supplier<MetadataImage> image,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> submit) {
        this.nodeId = nodeId;
        this.host = host;
        this.index = index;
        this.images = image;
        this.submit = submit;
    }

    /**
     * Publishes, for every partition this broker leads, its leadership and in-sync replicas through the metadata
     * group when they differ from what metadata says, so every broker can answer Metadata for it.
     *
     * <p>In-sync, precisely: the leader is in sync; a follower is in sync when, at some check within the last
     * {@code replicaLagTimeMaxMs}, its commit index had reached the commit index the leader had one check
     * earlier (checks run every {@code checkIntervalMs}). A new leader counts every follower as caught up at the
     * moment it took over, as Kafka does. A follower on a broker the metadata group marks dead is out at once.
     */
    void publishPartitionStates(long nowMs, long replicaLagTimeMaxMs) {
        MetadataImage image = images.get();
        for (LocalPartitionIndex.Entry entry : index.entries().values()) {
            UUID gid = entry.groupId();
            RaftGroupId groupId = RaftGroupId.valueOf(gid);
            Optional<GroupRole> role = host.role(groupId);
            Optional<TopicInfo> topic = image.topicById(entry.topicId());
            if (role.isEmpty() || !role.get().isLeader() || topic.isEmpty()) {
                lastCaughtUpMs.remove(gid);
                previousLeaderCommitIndex.remove(gid);
                continue;
            }
            Optional<ReplicationStatus> status = host.replicationStatus(groupId);
            if (status.isEmpty()) {
                continue;
            }
            List<Integer> replicas = topic.get().replicas().get(entry.partition());
            List<Integer> isr = inSyncReplicas(gid, replicas, status.get(), nowMs, replicaLagTimeMaxMs,
                    image.deadBrokers());
            PartitionState state = new PartitionState(nodeId, (int) role.get().term(), isr);
            TopicPartition tp = new TopicPartition(entry.topic(), entry.partition());
            if (state.equals(image.partitionState(tp).orElse(null)) || !statePublishesInFlight.add(gid)) {
                continue;
            }
            Optional<PartitionState> known = image.partitionState(tp);
            if (known.isPresent() && known.get().leaderId() == nodeId && !known.get().isr().equals(isr)) {
                LOG.info("{}: in-sync replicas {} -> {}", tp, known.get().isr(), isr);
            }
            submit.apply(new MetadataCommand.UpdatePartitionState(entry.topicId(), entry.partition(), state))
                    .whenComplete((result, error) -> statePublishesInFlight.remove(gid));
        }
    }

    private List<Integer> inSyncReplicas(UUID gid, List<Integer> replicas, ReplicationStatus status, long nowMs,
            long replicaLagTimeMaxMs, Set<Integer> deadBrokers) {
        Map<String, Long> caughtUp = lastCaughtUpMs.computeIfAbsent(gid, k -> new ConcurrentHashMap<>());
        Long previousCommit = previousLeaderCommitIndex.put(gid, status.leaderCommitIndex());
        List<Integer> isr = new ArrayList<>();
        for (int replica : replicas) {
            if (replica == nodeId) {
                isr.add(replica);
                continue;
            }
            if (deadBrokers.contains(replica)) {
                // Not heard from within broker.session.timeout.ms: out at once, as Kafka fences a broker whose
                // heartbeats stop, rather than after replica.lag.time.max.ms (a dead broker stayed ~39 s).
                continue;
            }
            String id = Integer.toString(replica);
            ReplicationStatus.Follower follower = status.followers().get(id);
            boolean caughtUpNow = previousCommit == null
                    || (follower != null && follower.commitIndex() >= previousCommit);
            if (caughtUpNow) {
                caughtUp.put(id, nowMs);
            }
            if (nowMs - caughtUp.getOrDefault(id, Long.MIN_VALUE / 2) <= replicaLagTimeMaxMs) {
                isr.add(replica);
            }
        }
        return isr;
    }

    /**
     * On the metadata group's leader: publishes which registered brokers are dead, those it has not heard from
     * (their last Raft response) within {@code brokerSessionTimeoutMs}. The leader itself is alive. Group
     * coordinators are chosen among the live brokers, so a dead broker's groups move elsewhere.
     */
    void publishBrokerLiveness(long brokerSessionTimeoutMs) {
        Optional<ReplicationStatus> status = host.replicationStatus(METADATA_GROUP);
        if (status.isEmpty() || !statePublishesInFlight.add(METADATA_GROUP.getUuid())) {
            return;
        }
        MetadataImage image = images.get();
        Set<Integer> dead = new java.util.TreeSet<>();
        for (int broker : image.brokers().keySet()) {
            if (broker == nodeId) {
                continue;
            }
            ReplicationStatus.Follower follower = status.get().followers().get(Integer.toString(broker));
            if (follower == null || follower.lastResponseElapsedMs() > brokerSessionTimeoutMs) {
                dead.add(broker);
            }
        }
        if (dead.equals(image.deadBrokers())) {
            statePublishesInFlight.remove(METADATA_GROUP.getUuid());
            return;
        }
        LOG.info("brokers not heard from within {} ms: {}", brokerSessionTimeoutMs, dead);
        submit.apply(new MetadataCommand.UpdateDeadBrokers(dead))
                .whenComplete((result, error) -> statePublishesInFlight.remove(METADATA_GROUP.getUuid()));
    }
}
