package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.group.GroupCoordinator;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.OffsetDeleteRequest;
import dev.cairn.protocol.message.OffsetDeleteRequest.OffsetDeleteRequestPartition;
import dev.cairn.protocol.message.OffsetDeleteRequest.OffsetDeleteRequestTopic;
import dev.cairn.protocol.message.OffsetDeleteResponse;
import dev.cairn.protocol.message.OffsetDeleteResponse.OffsetDeleteResponsePartition;
import dev.cairn.protocol.message.OffsetDeleteResponse.OffsetDeleteResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetDelete (key 47), version 0 ({@code kafka-consumer-groups --delete-offsets},
 * {@code Admin.deleteConsumerGroupOffsets}): deletes a group's committed offsets of some partitions, as Kafka's
 * classic groups allow it. Group-level: INVALID_GROUP_ID, NOT_COORDINATOR, NON_EMPTY_GROUP (members, and not a
 * {@code consumer} group), GROUP_ID_NOT_FOUND (neither held by this coordinator nor with a committed offset in any
 * partition). Per partition: UNKNOWN_TOPIC_OR_PARTITION, GROUP_SUBSCRIBED_TO_TOPIC (a member consumes the topic), or
 * NONE once the deletion committed (also when there was nothing to delete).
 */
public final class OffsetDeleteHandler implements RequestHandler {
    private final GroupCoordinator coordinator;
    private final MetadataService metadata;
    private final GroupOffsets offsets;

    public OffsetDeleteHandler(GroupCoordinator coordinator, MetadataService metadata,
            ReplicatedPartitions partitions) {
        this.coordinator = coordinator;
        this.metadata = metadata;
        this.offsets = new GroupOffsets(metadata, partitions);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String groupId = body.get(OffsetDeleteRequest.GROUP_ID);
        List<Struct> topics = body.get(OffsetDeleteRequest.TOPICS);
        ErrorCode groupError = !context.session().allowedOnGroup(AclOperation.DELETE, groupId == null ? "" : groupId)
                ? ErrorCode.GROUP_AUTHORIZATION_FAILED : offsets.coordinatorError(groupId);
        if (groupError != null) {
            return CompletableFuture.completedFuture(response(groupError, List.of()));
        }
        boolean loaded = coordinator.isLoaded(groupId);
        Map<String, Map<Integer, ErrorCode>> answers = new LinkedHashMap<>();
        List<TopicPartition> deletable = new ArrayList<>();
        for (Struct topic : topics) {
            String name = topic.get(OffsetDeleteRequestTopic.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            ErrorCode topicError = !context.session().allowedOnTopic(AclOperation.READ, name)
                    ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : info == null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                    : coordinator.offsetDeletion(groupId, name);
            if (topicError == ErrorCode.NON_EMPTY_GROUP) {
                return CompletableFuture.completedFuture(response(ErrorCode.NON_EMPTY_GROUP, List.of()));
            }
            Map<Integer, ErrorCode> partitionAnswers = answers.computeIfAbsent(name, k -> new LinkedHashMap<>());
            for (Struct partition : topic.get(OffsetDeleteRequestTopic.PARTITIONS)) {
                int index = partition.get(OffsetDeleteRequestPartition.PARTITION_INDEX);
                ErrorCode error = topicError;
                if (error == ErrorCode.NONE && (index < 0 || index >= info.partitionCount())) {
                    error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
                }
                if (error == ErrorCode.NONE) {
                    deletable.add(new TopicPartition(name, index));
                }
                partitionAnswers.put(index, error);
            }
        }
        return offsets.delete(groupId, deletable).thenCompose(deleted -> {
            if (deleted.error() != ErrorCode.NONE) {
                return CompletableFuture.completedFuture(response(deleted.error(), List.of()));
            }
            if (loaded || deleted.anyExisted()) {
                return CompletableFuture.completedFuture(response(ErrorCode.NONE, topicAnswers(answers)));
            }
            // Nothing here and nothing deleted: whether the group exists at all depends on its other offsets.
            return offsets.committedPartitions(groupId).thenApply(found -> {
                if (found.error() != ErrorCode.NONE) {
                    return response(found.error(), List.of());
                }
                return found.partitions().isEmpty() ? response(ErrorCode.GROUP_ID_NOT_FOUND, List.of())
                        : response(ErrorCode.NONE, topicAnswers(answers));
            });
        });
    }

    private static List<Struct> topicAnswers(Map<String, Map<Integer, ErrorCode>> answers) {
        List<Struct> topics = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, ErrorCode>> topic : answers.entrySet()) {
            List<Struct> partitions = new ArrayList<>();
            for (Map.Entry<Integer, ErrorCode> partition : topic.getValue().entrySet()) {
                partitions.add(new Struct(OffsetDeleteResponsePartition.SCHEMA)
                        .set(OffsetDeleteResponsePartition.PARTITION_INDEX, partition.getKey())
                        .set(OffsetDeleteResponsePartition.ERROR_CODE, partition.getValue().code()));
            }
            topics.add(new Struct(OffsetDeleteResponseTopic.SCHEMA)
                    .set(OffsetDeleteResponseTopic.NAME, topic.getKey())
                    .set(OffsetDeleteResponseTopic.PARTITIONS, partitions));
        }
        return topics;
    }

    private static Struct response(ErrorCode error, List<Struct> topics) {
        return new Struct(OffsetDeleteResponse.SCHEMA)
                .set(OffsetDeleteResponse.ERROR_CODE, error.code())
                .set(OffsetDeleteResponse.THROTTLE_TIME_MS, 0)
                .set(OffsetDeleteResponse.TOPICS, topics);
    }
}
