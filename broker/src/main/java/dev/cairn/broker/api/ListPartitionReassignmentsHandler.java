package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ListPartitionReassignmentsRequest;
import dev.cairn.protocol.message.ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse.OngoingPartitionReassignment;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse.OngoingTopicReassignment;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * ListPartitionReassignments (key 46), version 0 ({@code kafka-reassign-partitions --verify/--list},
 * {@code Admin.listPartitionReassignments}): the reassignments in progress in the metadata image, each with the
 * partition's replicas now, those being added and those leaving, as Kafka lists them. Partitions that are not moving
 * (or do not exist) are left out, as Kafka leaves them out.
 */
public final class ListPartitionReassignmentsHandler implements RequestHandler {
    private final MetadataService metadata;

    public ListPartitionReassignmentsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct response = new Struct(ListPartitionReassignmentsResponse.SCHEMA)
                .set(ListPartitionReassignmentsResponse.THROTTLE_TIME_MS, 0)
                .set(ListPartitionReassignmentsResponse.ERROR_MESSAGE, null);
        if (!context.session().allowedOnCluster(AclOperation.DESCRIBE)) {
            return CompletableFuture.completedFuture(response
                    .set(ListPartitionReassignmentsResponse.ERROR_CODE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code())
                    .set(ListPartitionReassignmentsResponse.TOPICS, List.of()));
        }
        MetadataImage image = metadata.image();
        List<Struct> asked = request.body().get(ListPartitionReassignmentsRequest.TOPICS);
        Map<String, List<Struct>> listed = new TreeMap<>();
        if (asked == null) {
            image.reassignments().keySet().stream()
                    .sorted(java.util.Comparator.comparing(TopicPartition::topic)
                            .thenComparingInt(TopicPartition::partition))
                    .forEach(tp -> describe(image, tp).ifPresent(s -> listed.computeIfAbsent(tp.topic(),
                            k -> new ArrayList<>()).add(s)));
        } else {
            for (Struct topic : asked) {
                String name = topic.get(ListPartitionReassignmentsTopics.NAME);
                for (int partition : topic.get(ListPartitionReassignmentsTopics.PARTITION_INDEXES)) {
                    describe(image, new TopicPartition(name, partition)).ifPresent(s -> listed
                            .computeIfAbsent(name, k -> new ArrayList<>()).add(s));
                }
            }
        }
        List<Struct> topics = new ArrayList<>();
        listed.forEach((name, partitions) -> topics.add(new Struct(OngoingTopicReassignment.SCHEMA)
                .set(OngoingTopicReassignment.NAME, name)
                .set(OngoingTopicReassignment.PARTITIONS, partitions)));
        return CompletableFuture.completedFuture(response
                .set(ListPartitionReassignmentsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(ListPartitionReassignmentsResponse.TOPICS, topics));
    }

    private static Optional<Struct> describe(MetadataImage image, TopicPartition tp) {
        Optional<PartitionReassignment> reassignment = image.reassignment(tp);
        Optional<TopicInfo> topic = image.topic(tp.topic());
        if (reassignment.isEmpty() || topic.isEmpty() || tp.partition() >= topic.get().partitionCount()) {
            return Optional.empty();
        }
        List<Integer> replicas = topic.get().replicas().get(tp.partition());
        return Optional.of(new Struct(OngoingPartitionReassignment.SCHEMA)
                .set(OngoingPartitionReassignment.PARTITION_INDEX, tp.partition())
                .set(OngoingPartitionReassignment.REPLICAS, replicas)
                .set(OngoingPartitionReassignment.ADDING_REPLICAS, reassignment.get().adding())
                .set(OngoingPartitionReassignment.REMOVING_REPLICAS, reassignment.get().removing(replicas)));
    }
}
