package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Publishes through the metadata group, for each partition this broker leads on the engine, its leader, epoch and
 * in-sync replicas where metadata says otherwise, so Metadata answers name them. One broker: the leader is the only
 * in-sync replica. At most one publication in flight per partition.
 */
final class EngineStatePublisher {
    private final int nodeId;
    private final EngineGroups groups;
    private final EngineLeaderships leaderships;
    private final Supplier<MetadataImage> images;
    private final Function<MetadataCommand, CompletableFuture<MetadataResult>> submit;
    private final Set<TopicPartition> inFlight = ConcurrentHashMap.newKeySet();

    EngineStatePublisher(int nodeId, EngineGroups groups, EngineLeaderships leaderships,
            Supplier<MetadataImage> images, Function<MetadataCommand, CompletableFuture<MetadataResult>> submit) {
        this.nodeId = nodeId;
        this.groups = groups;
        this.leaderships = leaderships;
        this.images = images;
        this.submit = submit;
    }

    void publish() {
        MetadataImage image = images.get();
        for (TopicPartition tp : groups.hostedPartitions()) {
            EngineGroups.Hosted hosted = groups.hosted(tp);
            Optional<TopicInfo> topic = image.topic(tp.topic());
            if (hosted == null || topic.isEmpty() || topic.get().raftGroup(tp.partition()) != hosted.group()) {
                continue;
            }
            Leadership leadership = leaderships.leadership(hosted.group());
            if (!leadership.local()) {
                continue;
            }
            PartitionState state = new PartitionState(nodeId, leadership.leaderEpoch(), List.of(nodeId));
            if (state.equals(image.partitionState(tp).orElse(null)) || !inFlight.add(tp)) {
                continue;
            }
            submit.apply(new MetadataCommand.UpdatePartitionState(topic.get().topicId(), tp.partition(), state))
                    .whenComplete((result, error) -> inFlight.remove(tp));
        }
    }
}
