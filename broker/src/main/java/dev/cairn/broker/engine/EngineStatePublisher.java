package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.raft.runtime.GroupReplication;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes through the metadata group, for each partition this broker leads on the engine, its leader, epoch and
 * in-sync replicas where metadata says otherwise, so every broker's Metadata answers name them. At most one
 * publication in flight per partition.
 *
 * <p>In sync, as on the Ratis path: the leader is; a follower is when, at some check within the last
 * {@code replica.lag.time.max.ms}, its match index had reached the commit index the leader had one check earlier. A
 * new leader counts every follower as caught up when it took over, as Kafka does; a follower on a broker the metadata
 * group marks dead is out at once.
 */
final class EngineStatePublisher {
    private static final Logger LOG = LoggerFactory.getLogger(EngineStatePublisher.class);

    private final int nodeId;
    private final EngineGroups groups;
    private final EngineLeaderships leaderships;
    private final Supplier<MetadataImage> images;
    private final Function<MetadataCommand, CompletableFuture<MetadataResult>> submit;
    private final Set<TopicPartition> inFlight = ConcurrentHashMap.newKeySet();
    /** Per led group: the term it was led in, the leader's commit at the last check, each follower's last catch-up. */
    private final Map<Integer, Tracking> tracking = new ConcurrentHashMap<>();

    private static final class Tracking {
        final long term;
        long previousCommit;
        final Map<Integer, Long> caughtUpMs = new ConcurrentHashMap<>();

        Tracking(long term) {
            this.term = term;
        }
    }

    EngineStatePublisher(int nodeId, EngineGroups groups, EngineLeaderships leaderships,
            Supplier<MetadataImage> images, Function<MetadataCommand, CompletableFuture<MetadataResult>> submit) {
        this.nodeId = nodeId;
        this.groups = groups;
        this.leaderships = leaderships;
        this.images = images;
        this.submit = submit;
    }

    void publish(long nowMs, long replicaLagTimeMaxMs) {
        MetadataImage image = images.get();
        tracking.keySet().removeIf(group -> !leaderships.serving(group));
        for (TopicPartition tp : groups.hostedPartitions()) {
            EngineGroups.Hosted hosted = groups.hosted(tp);
            Optional<TopicInfo> topic = image.topic(tp.topic());
            if (hosted == null || topic.isEmpty() || tp.partition() >= topic.get().partitionCount()
                    || topic.get().raftGroup(tp.partition()) != hosted.group()) {
                continue;
            }
            Leadership leadership = leaderships.leadership(hosted.group());
            if (!leadership.local() || inFlight.contains(tp)) {
                continue;
            }
            List<Integer> replicas = topic.get().replicas().get(tp.partition());
            groups.engine().replication(hosted.group()).whenComplete((replication, error) -> {
                if (error == null && replication.leading()) {
                    List<Integer> isr = inSync(hosted.group(), replicas, replication, nowMs, replicaLagTimeMaxMs,
                            image.deadBrokers());
                    publish(image, tp, topic.get(), new PartitionState(nodeId, (int) replication.term(), isr));
                }
            });
        }
    }

    private List<Integer> inSync(int group, List<Integer> replicas, GroupReplication replication, long nowMs,
            long replicaLagTimeMaxMs, Set<Integer> deadBrokers) {
        Tracking track = tracking.compute(group, (g, known) -> known == null || known.term != replication.term()
                ? new Tracking(replication.term()) : known);
        long previousCommit;
        synchronized (track) {
            previousCommit = track.previousCommit;
            track.previousCommit = replication.commitIndex();
        }
        List<Integer> isr = new ArrayList<>();
        for (int replica : replicas) {
            if (replica == nodeId) {
                isr.add(replica);
                continue;
            }
            long match = replication.matchIndex().getOrDefault(replica + 1, 0L);
            long caughtUp = track.caughtUpMs.computeIfAbsent(replica, r -> nowMs);
            if (match >= previousCommit) {
                track.caughtUpMs.put(replica, nowMs);
                caughtUp = nowMs;
            }
            if (nowMs - caughtUp <= replicaLagTimeMaxMs && !deadBrokers.contains(replica)) {
                isr.add(replica);
            }
        }
        return isr;
    }

    private void publish(MetadataImage image, TopicPartition tp, TopicInfo topic, PartitionState state) {
        Optional<PartitionState> known = image.partitionState(tp);
        if (state.equals(known.orElse(null)) || !inFlight.add(tp)) {
            return;
        }
        if (known.isPresent() && known.get().leaderId() == nodeId && !known.get().isr().equals(state.isr())) {
            LOG.info("{}: in-sync replicas {} -> {}", tp, known.get().isr(), state.isr());
        }
        submit.apply(new MetadataCommand.UpdatePartitionState(topic.topicId(), tp.partition(), state))
                .whenComplete((result, error) -> inFlight.remove(tp));
    }
}
