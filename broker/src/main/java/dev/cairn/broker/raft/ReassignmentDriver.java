package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.ReassignmentSteps;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the replicas of partitions under reassignment, run on the maintenance timer by every broker for the partitions
 * it leads. Each run takes one step per partition, at most one in flight, decided from what the Raft group's voters are
 * now, so that a leader change or a restart mid-way resumes where the group is:
 * <ol>
 * <li>voters lack a target replica: make every listed replica a voter (Ratis catches the new ones up, from the
 *     leader's log or a snapshot with the segments, before the new configuration commits);</li>
 * <li>all target replicas vote and this leader is leaving: hand leadership to a target replica;</li>
 * <li>otherwise make exactly the target the voters, then tell the metadata group the reassignment is complete (the
 *     replicas that left remove their copy when they see that).</li>
 * </ol>
 */
final class ReassignmentDriver {
    private static final Logger LOG = LoggerFactory.getLogger(ReassignmentDriver.class);

    private final int nodeId;
    private final RaftHost host;
    private final Supplier<MetadataImage> images;
    private final Function<TopicPartition, UUID> groupOf;
    private final Function<List<Integer>, List<RaftPeer>> peers;
    private final Function<MetadataCommand, CompletableFuture<MetadataResult>> metadata;
    private final ReassignmentSteps steps = new ReassignmentSteps(STEPS_IN_FLIGHT_MAX, STEP_TIMEOUT_MS);
    /** The longest one step may take before the next run tries again (Ratis answers or gives up sooner). */
    static final long STEP_TIMEOUT_MS = 60_000;
    /**
     * Steps in flight at once on this broker, whatever the number of partitions moving: each may catch a new replica
     * up with a snapshot of the partition's segments; the other partitions wait for later runs.
     */
    static final int STEPS_IN_FLIGHT_MAX = 16;

    /**
     * @param groupOf the Raft group of a partition this broker hosts, null for others
     * @param metadata submits a command to the metadata group
     */
    ReassignmentDriver(int nodeId, RaftHost host, Supplier<MetadataImage> images,
            Function<TopicPartition, UUID> groupOf, Function<List<Integer>, List<RaftPeer>> peers,
            Function<MetadataCommand, CompletableFuture<MetadataResult>> metadata) {
        this.nodeId = nodeId;
        this.host = host;
        this.images = images;
        this.groupOf = groupOf;
        this.peers = peers;
        this.metadata = metadata;
    }

    /** Takes the next step of every reassignment whose partition this broker leads. */
    void drive(long transferTimeoutMs) {
        MetadataImage image = images.get();
        steps.retain(image.reassignments().keySet());
        for (Map.Entry<TopicPartition, PartitionReassignment> entry : image.reassignments().entrySet()) {
            TopicPartition tp = entry.getKey();
            UUID gid = groupOf.apply(tp);
            TopicInfo topic = image.topics().get(tp.topic());
            if (gid == null || topic == null) {
                continue;
            }
            RaftGroupId groupId = RaftGroupId.valueOf(gid);
            boolean leads = host.role(groupId).map(GroupRole::isLeader).orElse(false);
            Optional<Set<String>> voters = host.voters(groupId);
            if (steps.full()) {
                return;
            }
            if (!leads || voters.isEmpty() || !steps.claim(tp)) {
                continue;
            }
            steps.track(tp, entry.getValue().target(),
                    step(tp, groupId, topic, entry.getValue(), voters.get(), transferTimeoutMs));
        }
    }

    private CompletableFuture<?> step(TopicPartition tp, RaftGroupId groupId, TopicInfo topic,
            PartitionReassignment reassignment, Set<String> voters, long transferTimeoutMs) {
        List<Integer> target = reassignment.target();
        List<Integer> replicas = topic.replicas().get(tp.partition());
        if (!voters.containsAll(ids(target))) {
            LOG.info("{}: reassignment to {}: adding voters (now {}, becoming {})", tp, target, voters, replicas);
            return host.setVoters(groupId, peers.apply(replicas));
        }
        if (!target.contains(nodeId)) {
            int next = target.get(0);
            LOG.info("{}: reassignment to {}: handing leadership to {} before leaving", tp, target, next);
            return host.transferLeadership(groupId, Integer.toString(next), transferTimeoutMs);
        }
        CompletableFuture<Void> voted = voters.equals(ids(target)) ? CompletableFuture.completedFuture(null)
                : host.setVoters(groupId, peers.apply(target));
        return voted.thenCompose(ignored -> metadata.apply(new MetadataCommand.CompleteReassignment(tp.topic(),
                topic.topicId(), tp.partition(), target))).thenAccept(result -> {
                    if (result == MetadataResult.OK) {
                        LOG.info("{}: reassignment complete; replicas {}", tp, target);
                    } else {
                        LOG.info("{}: completing the reassignment to {}: {}", tp, target, result);
                    }
                });
    }

    private static Set<String> ids(List<Integer> nodeIds) {
        Set<String> ids = new TreeSet<>();
        nodeIds.forEach(id -> ids.add(Integer.toString(id)));
        return ids;
    }
}
