package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.ReassignmentSteps;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.raft.Role;
import dev.cairn.raft.runtime.GroupReplication;
import dev.cairn.raft.runtime.GroupStatus;
import dev.cairn.raft.runtime.RaftEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the replicas of partitions under reassignment on Cairn's engine, run on the maintenance timer by every broker
 * for the groups it leads. Each run takes one step per partition, at most one in flight, decided from the group's
 * voters now, so that a leader change or a restart resumes where the group is. The engine changes voters one at a
 * time ({@code dev.cairn.raft.Membership}), so a move from [1, 2, 3] to [4, 5, 6] is six changes:
 * <ol>
 * <li>a target replica is not a voter: the leader catches the missing ones up as learners (its log, or a snapshot
 *     with the segments), and adds each as a voter once it holds every committed entry;</li>
 * <li>every target replica votes and this leader is leaving: hand leadership to the first target replica;</li>
 * <li>a voter is not in the target: remove it;</li>
 * <li>the voters are the target: tell the metadata group the reassignment is complete (the replicas that left remove
 *     their copy when they see that).</li>
 * </ol>
 * A replica a reassignment adds starts outside the group's voters ({@link EngineGroups}), so it never stands for
 * election before the leader's log makes it a voter.
 */
final class EngineReassignments {
    private static final Logger LOG = LoggerFactory.getLogger(EngineReassignments.class);
    /** The longest one step may take before a later run tries again. */
    static final long STEP_TIMEOUT_MS = 60_000;
    /** Steps in flight at once on this broker, whatever the number of partitions moving. */
    static final int STEPS_IN_FLIGHT_MAX = 16;

    private final int nodeId;
    private final Supplier<RaftEngine> engine;
    private final Function<TopicPartition, EngineGroups.Hosted> hosted;
    private final Supplier<MetadataImage> images;
    private final Function<MetadataCommand, CompletableFuture<MetadataResult>> metadata;
    private final ReassignmentSteps steps = new ReassignmentSteps(STEPS_IN_FLIGHT_MAX, STEP_TIMEOUT_MS);

    EngineReassignments(int nodeId, Supplier<RaftEngine> engine, Function<TopicPartition, EngineGroups.Hosted> hosted,
            Supplier<MetadataImage> images, Function<MetadataCommand, CompletableFuture<MetadataResult>> metadata) {
        this.nodeId = nodeId;
        this.engine = engine;
        this.hosted = hosted;
        this.images = images;
        this.metadata = metadata;
    }

    /** Takes the next step of every reassignment whose group this broker leads. */
    void drive(long transferTimeoutMs) {
        MetadataImage image = images.get();
        steps.retain(image.reassignments().keySet());
        for (Map.Entry<TopicPartition, PartitionReassignment> entry : image.reassignments().entrySet()) {
            if (steps.full()) {
                return;
            }
            TopicPartition tp = entry.getKey();
            EngineGroups.Hosted group = hosted.apply(tp);
            TopicInfo topic = image.topics().get(tp.topic());
            GroupStatus status = group == null ? null : engine.get().status(group.group());
            if (topic == null || status == null || status.role() != Role.LEADER || status.configurationPending()
                    || topic.raftGroup(tp.partition()) != group.group() || !steps.claim(tp)) {
                continue;
            }
            List<Integer> target = entry.getValue().target();
            steps.track(tp, target, step(tp, group.group(), topic, target, status.voters(), transferTimeoutMs));
        }
    }

    /** One step; {@code target} holds broker ids, {@code voters} the engine's replica ids (broker id + 1). */
    private CompletableFuture<?> step(TopicPartition tp, int group, TopicInfo topic, List<Integer> target,
            List<Integer> voters, long transferTimeoutMs) {
        List<Integer> targetVoters = target.stream().map(node -> node + 1).toList();
        RaftEngine raft = engine.get();
        List<Integer> missing = targetVoters.stream().filter(voter -> !voters.contains(voter)).toList();
        if (!missing.isEmpty()) {
            return raft.replication(group).thenCompose(replication -> addCaughtUp(tp, group, target, voters, missing,
                    replication));
        }
        if (!targetVoters.contains(nodeId + 1)) {
            int successor = targetVoters.get(0);
            LOG.info("{}: reassignment to {}: handing leadership to {} before leaving", tp, target, successor - 1);
            return raft.transferLeadership(group, successor);
        }
        for (int voter : voters) {
            if (!targetVoters.contains(voter)) {
                List<Integer> next = new ArrayList<>(voters);
                next.remove(Integer.valueOf(voter));
                LOG.info("{}: reassignment to {}: voters {} become {}", tp, target, voters, next);
                return raft.changeVoters(group, next);
            }
        }
        return metadata.apply(new MetadataCommand.CompleteReassignment(tp.topic(), topic.topicId(), tp.partition(),
                target)).thenAccept(result -> {
                    if (result == MetadataResult.OK) {
                        LOG.info("{}: reassignment complete; replicas {}", tp, target);
                    } else {
                        LOG.info("{}: completing the reassignment to {}: {}", tp, target, result);
                    }
                });
    }

    /**
     * Adds the first of the {@code missing} target replicas that holds every committed entry as a voter; until one
     * does, has the leader send them its log as learners (so that adding one never leaves the group without a
     * majority able to commit while it catches up, even with another voter down).
     */
    private CompletableFuture<?> addCaughtUp(TopicPartition tp, int group, List<Integer> target, List<Integer> voters,
            List<Integer> missing, GroupReplication replication) {
        RaftEngine raft = engine.get();
        for (int replica : missing) {
            if (replication.leading() && replication.matchIndex().getOrDefault(replica, 0L)
                    >= replication.commitIndex()) {
                List<Integer> next = new ArrayList<>(voters);
                next.add(replica);
                LOG.info("{}: reassignment to {}: voters {} become {}", tp, target, voters, next);
                return raft.changeVoters(group, next);
            }
        }
        missing.forEach(replica -> raft.catchUp(group, replica));
        LOG.debug("{}: replicas {} catch up: match {}, commit {}", tp, missing, replication.matchIndex(),
                replication.commitIndex());
        return CompletableFuture.failedFuture(new IllegalStateException("replicas " + missing + " are catching up"));
    }
}
