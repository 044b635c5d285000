package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetFetch (key 9), versions 1-7 (one group per request): each partition's committed offset, read from the
 * partition's leader replica on this broker. A partition without a committed offset, or of a topic that does
 * not exist, answers offset -1 with metadata "" and no error, as Kafka does (the consumer then resets by
 * {@code auto.offset.reset}). No topics (null, v2+) means every partition the group has committed.
 *
 * <p>Failures are group-level coordinator errors, the only ones consumers retry: a partition whose leader is not
 * here (or not elected yet) makes the whole answer NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS), rather than
 * an offset that might be stale. Version 1 has no group-level error field, so, as in Kafka, the error goes into
 * every requested partition.
 */
public final class OffsetFetchHandler implements RequestHandler {
    static final long NO_OFFSET = -1;
    static final int NO_LEADER_EPOCH = -1;
    /** What Kafka answers for "no metadata"; kafka-clients turns null into it as well. */
    static final String NO_METADATA = "";
    /** The first version with a group-level error code. */
    private static final short GROUP_ERROR_MIN_VERSION = 2;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public OffsetFetchHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String groupId = body.get(OffsetFetchRequest.GROUP_ID);
        List<Struct> requested = body.get(OffsetFetchRequest.TOPICS);
        MetadataImage image = metadata.image();
        ErrorCode groupError = coordinatorError(groupId, image);
        Map<String, List<Struct>> topics = new LinkedHashMap<>();
        if (groupError == null) {
            try {
                groupError = requested == null ? allCommitted(groupId, image, topics)
                        : fetch(groupId, requested, image, topics);
            } catch (StorageException e) {
                // Kafka's coordinator answers a storage failure with NOT_COORDINATOR, which the client retries.
                groupError = ErrorCode.NOT_COORDINATOR;
            }
        }
        if (groupError != null) {
            return CompletableFuture.completedFuture(groupErrorResponse(request.apiVersion(), requested, groupError));
        }
        List<Struct> topicResponses = new ArrayList<>();
        for (Map.Entry<String, List<Struct>> topic : topics.entrySet()) {
            topicResponses.add(new Struct(OffsetFetchResponseTopic.SCHEMA)
                    .set(OffsetFetchResponseTopic.NAME, topic.getKey())
                    .set(OffsetFetchResponseTopic.PARTITIONS, topic.getValue()));
        }
        return CompletableFuture.completedFuture(response(topicResponses, ErrorCode.NONE));
    }

    /** The group-level error when this broker cannot answer for the group at all, else null. */
    private ErrorCode coordinatorError(String groupId, MetadataImage image) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, image.brokers());
        if (coordinator == null || coordinator.nodeId() != metadata.localNodeId()) {
            return ErrorCode.NOT_COORDINATOR;
        }
        return null;
    }

    /** Adds the requested partitions' answers to {@code topics}; returns a group-level error, or null. */
    private ErrorCode fetch(String groupId, List<Struct> requested, MetadataImage image,
            Map<String, List<Struct>> topics) {
        for (Struct topic : requested) {
            String name = topic.get(OffsetFetchRequestTopic.NAME);
            TopicInfo info = image.topics().get(name);
            List<Struct> answers = topics.computeIfAbsent(name, key -> new ArrayList<>());
            for (int index : topic.get(OffsetFetchRequestTopic.PARTITION_INDEXES)) {
                if (info == null || index < 0 || index >= info.partitionCount()) {
                    answers.add(answer(index, NO_OFFSET, NO_METADATA, ErrorCode.NONE));
                    continue;
                }
                TopicPartition tp = new TopicPartition(name, index);
                Partition replica = partitions.leaderReplica(tp).orElse(null);
                if (replica == null) {
                    return notLeaderError(tp);
                }
                answers.add(committed(groupId, replica).orElse(answer(index, NO_OFFSET, NO_METADATA,
                        ErrorCode.NONE)));
            }
        }
        return null;
    }

    /**
     * Adds every partition with an offset committed by the group to {@code topics}, in topic name order; returns
     * a group-level error, or null.
     */
    private ErrorCode allCommitted(String groupId, MetadataImage image, Map<String, List<Struct>> topics) {
        for (TopicInfo topic : image.topics().values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                Partition replica = partitions.leaderReplica(tp).orElse(null);
                if (replica == null) {
                    return notLeaderError(tp);
                }
                Optional<Struct> answer = committed(groupId, replica);
                if (answer.isPresent()) {
                    topics.computeIfAbsent(topic.name(), key -> new ArrayList<>()).add(answer.get());
                }
            }
        }
        return null;
    }

    private ErrorCode notLeaderError(TopicPartition tp) {
        ErrorCode error = OffsetCommitHandler.coordinatorErrorIfNotLeader(partitions.leadership(tp));
        // Leading but not ready (the replica is still loading) is a load in progress as well.
        return error != null ? error : ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    }

    private static Optional<Struct> committed(String groupId, Partition replica) {
        return replica.committedOffset(groupId).map(offset -> answer(replica.partition(), offset.offset(),
                offset.metadata() == null ? NO_METADATA : offset.metadata(), ErrorCode.NONE));
    }

    private static Struct groupErrorResponse(short version, List<Struct> requested, ErrorCode error) {
        if (version >= GROUP_ERROR_MIN_VERSION || requested == null) {
            return response(List.of(), error);
        }
        List<Struct> topicResponses = new ArrayList<>();
        for (Struct topic : requested) {
            List<Struct> answers = new ArrayList<>();
            for (int index : topic.get(OffsetFetchRequestTopic.PARTITION_INDEXES)) {
                answers.add(answer(index, NO_OFFSET, NO_METADATA, error));
            }
            topicResponses.add(new Struct(OffsetFetchResponseTopic.SCHEMA)
                    .set(OffsetFetchResponseTopic.NAME, topic.get(OffsetFetchRequestTopic.NAME))
                    .set(OffsetFetchResponseTopic.PARTITIONS, answers));
        }
        return response(topicResponses, error);
    }

    private static Struct response(List<Struct> topics, ErrorCode groupError) {
        return new Struct(OffsetFetchResponse.SCHEMA)
                .set(OffsetFetchResponse.THROTTLE_TIME_MS, 0)
                .set(OffsetFetchResponse.TOPICS, topics)
                .set(OffsetFetchResponse.ERROR_CODE, groupError.code());
    }

    private static Struct answer(int index, long offset, String committedMetadata, ErrorCode error) {
        return new Struct(OffsetFetchResponsePartition.SCHEMA)
                .set(OffsetFetchResponsePartition.PARTITION_INDEX, index)
                .set(OffsetFetchResponsePartition.COMMITTED_OFFSET, offset)
                .set(OffsetFetchResponsePartition.COMMITTED_LEADER_EPOCH, NO_LEADER_EPOCH)
                .set(OffsetFetchResponsePartition.METADATA, committedMetadata)
                .set(OffsetFetchResponsePartition.ERROR_CODE, error.code());
    }
}
