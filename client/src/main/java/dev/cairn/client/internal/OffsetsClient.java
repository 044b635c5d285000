package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnException;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.FindCoordinatorRequest;
import dev.cairn.protocol.message.FindCoordinatorResponse;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.OffsetCommitRequest;
import dev.cairn.protocol.message.OffsetCommitResponse;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * ListOffsets (to each partition's leader), and the group-offset calls of a consumer with assigned partitions:
 * FindCoordinator, OffsetCommit with generation -1 and an empty member id (kafka-protocol.md A.1 "assign +
 * commitSync"), OffsetFetch. Shared by the consumer and the admin client.
 */
public final class OffsetsClient {
    /** ListOffsets timestamp meaning "the log start offset". */
    public static final long EARLIEST_TIMESTAMP = -2L;
    /** ListOffsets timestamp meaning "the log end offset". */
    public static final long LATEST_TIMESTAMP = -1L;
    /** FindCoordinator key type for a consumer group. */
    private static final byte GROUP_KEY_TYPE = 0;

    private final ClusterClient cluster;

    public OffsetsClient(ClusterClient cluster) {
        this.cluster = cluster;
    }

    /** Offsets for the given ListOffsets timestamps (EARLIEST, LATEST or a time), one request per leader. */
    public Map<TopicPartition, Long> listOffsets(Map<TopicPartition, Long> timestamps) {
        ClusterMetadata metadata = metadataFor(timestamps.keySet());
        Map<Integer, Map<TopicPartition, Long>> byLeader = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : timestamps.entrySet()) {
            int leader = metadata.leaderOf(entry.getKey());
            if (leader < 0) {
                throw new CairnApiException(ErrorCode.LEADER_NOT_AVAILABLE, "ListOffsets for " + entry.getKey());
            }
            byLeader.computeIfAbsent(leader, unused -> new LinkedHashMap<>()).put(entry.getKey(), entry.getValue());
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (Map.Entry<Integer, Map<TopicPartition, Long>> entry : byLeader.entrySet()) {
            Struct response = BrokerConnection.await(cluster.connection(entry.getKey()).send(ApiKey.LIST_OFFSETS,
                    listOffsetsRequest(entry.getValue()), true), cluster.requestTimeoutMs(), "ListOffsets");
            for (Struct topic : response.get(ListOffsetsResponse.TOPICS)) {
                String name = topic.get(ListOffsetsResponse.ListOffsetsTopicResponse.NAME);
                for (Struct partition : topic.get(ListOffsetsResponse.ListOffsetsTopicResponse.PARTITIONS)) {
                    TopicPartition topicPartition = new TopicPartition(name,
                            partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.PARTITION_INDEX));
                    ErrorCode error = ErrorCode.forCode(
                            partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.ERROR_CODE));
                    if (error != ErrorCode.NONE) {
                        throw new CairnApiException(error, "ListOffsets for " + topicPartition);
                    }
                    offsets.put(topicPartition, partition.get(ListOffsetsResponse.ListOffsetsPartitionResponse.OFFSET));
                }
            }
        }
        return offsets;
    }

    private ClusterMetadata metadataFor(Collection<TopicPartition> partitions) {
        List<String> topics = new ArrayList<>();
        partitions.forEach(tp -> {
            if (!topics.contains(tp.topic())) {
                topics.add(tp.topic());
            }
        });
        ClusterMetadata metadata = cluster.metadata();
        for (TopicPartition partition : partitions) {
            if (metadata == null || metadata.leaderOf(partition) < 0) {
                return cluster.refreshMetadata(topics, false);
            }
        }
        return metadata;
    }

    private static Struct listOffsetsRequest(Map<TopicPartition, Long> timestamps) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : timestamps.entrySet()) {
            byTopic.computeIfAbsent(entry.getKey().topic(), unused -> new ArrayList<>()).add(
                    new Struct(ListOffsetsRequest.ListOffsetsPartition.SCHEMA)
                            .set(ListOffsetsRequest.ListOffsetsPartition.PARTITION_INDEX, entry.getKey().partition())
                            .set(ListOffsetsRequest.ListOffsetsPartition.TIMESTAMP, entry.getValue()));
        }
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, partitions) -> topics.add(new Struct(ListOffsetsRequest.ListOffsetsTopic.SCHEMA)
                .set(ListOffsetsRequest.ListOffsetsTopic.NAME, name)
                .set(ListOffsetsRequest.ListOffsetsTopic.PARTITIONS, partitions)));
        return new Struct(ListOffsetsRequest.SCHEMA)
                .set(ListOffsetsRequest.REPLICA_ID, -1)
                .set(ListOffsetsRequest.ISOLATION_LEVEL, (byte) 0)
                .set(ListOffsetsRequest.TOPICS, topics);
    }

    /** The group coordinator's node id. */
    public int findCoordinator(String groupId) {
        Struct request = new Struct(FindCoordinatorRequest.SCHEMA)
                .set(FindCoordinatorRequest.KEY, groupId)
                .set(FindCoordinatorRequest.KEY_TYPE, GROUP_KEY_TYPE);
        Struct response = BrokerConnection.await(cluster.anyConnection().send(ApiKey.FIND_COORDINATOR, request, true),
                cluster.requestTimeoutMs(), "FindCoordinator");
        ErrorCode error = ErrorCode.forCode(response.get(FindCoordinatorResponse.ERROR_CODE));
        if (error != ErrorCode.NONE) {
            throw new CairnApiException(error, "FindCoordinator for group " + groupId);
        }
        int nodeId = response.get(FindCoordinatorResponse.NODE_ID);
        ClusterMetadata metadata = cluster.metadata();
        if (metadata == null || !metadata.brokers().containsKey(nodeId)) {
            cluster.refreshMetadata(List.of(), false);
        }
        return nodeId;
    }

    /** Sends OffsetCommit for a consumer outside any group generation (assign()). */
    public CompletableFuture<Void> commit(int coordinator, String groupId, Map<TopicPartition, Long> offsets) {
        return commit(coordinator, groupId, GroupMember.NONE, offsets);
    }

    /** Who commits: a group member's generation, member id and static instance id, or NONE outside a group. */
    public record GroupMember(int generationId, String memberId, String groupInstanceId) {
        public static final GroupMember NONE = new GroupMember(-1, "", null);
    }

    /**
     * Sends OffsetCommit to the coordinator; the future fails with the first partition error. A group member's
     * commit goes over the coordinator connection with its generation, which the coordinator checks.
     */
    public CompletableFuture<Void> commit(int coordinator, String groupId, GroupMember member,
                                          Map<TopicPartition, Long> offsets) {
        Map<String, List<Struct>> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> entry : offsets.entrySet()) {
            byTopic.computeIfAbsent(entry.getKey().topic(), unused -> new ArrayList<>()).add(
                    new Struct(OffsetCommitRequest.OffsetCommitRequestPartition.SCHEMA)
                            .set(OffsetCommitRequest.OffsetCommitRequestPartition.PARTITION_INDEX,
                                    entry.getKey().partition())
                            .set(OffsetCommitRequest.OffsetCommitRequestPartition.COMMITTED_OFFSET, entry.getValue())
                            .set(OffsetCommitRequest.OffsetCommitRequestPartition.COMMITTED_METADATA, ""));
        }
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, partitions) -> topics.add(new Struct(OffsetCommitRequest.OffsetCommitRequestTopic.SCHEMA)
                .set(OffsetCommitRequest.OffsetCommitRequestTopic.NAME, name)
                .set(OffsetCommitRequest.OffsetCommitRequestTopic.PARTITIONS, partitions)));
        Struct request = new Struct(OffsetCommitRequest.SCHEMA)
                .set(OffsetCommitRequest.GROUP_ID, groupId)
                .set(OffsetCommitRequest.GENERATION_ID_OR_MEMBER_EPOCH, member.generationId())
                .set(OffsetCommitRequest.MEMBER_ID, member.memberId())
                .set(OffsetCommitRequest.GROUP_INSTANCE_ID, member.groupInstanceId())
                .set(OffsetCommitRequest.TOPICS, topics);
        BrokerConnection connection = member == GroupMember.NONE ? cluster.connection(coordinator)
                : cluster.coordinatorConnection(coordinator);
        return connection.send(ApiKey.OFFSET_COMMIT, request, true).thenAccept(response -> {
            for (Struct topic : response.get(OffsetCommitResponse.TOPICS)) {
                for (Struct partition : topic.get(OffsetCommitResponse.OffsetCommitResponseTopic.PARTITIONS)) {
                    ErrorCode error = ErrorCode.forCode(
                            partition.get(OffsetCommitResponse.OffsetCommitResponsePartition.ERROR_CODE));
                    if (error != ErrorCode.NONE) {
                        throw new CairnApiException(error, "OffsetCommit for group " + groupId + " partition "
                                + topic.get(OffsetCommitResponse.OffsetCommitResponseTopic.NAME) + "-"
                                + partition.get(OffsetCommitResponse.OffsetCommitResponsePartition.PARTITION_INDEX));
                    }
                }
            }
        });
    }

    /**
     * The committed offsets of a group; a partition without a committed offset is absent. {@code wanted} null
     * asks for every partition the group has committed (OffsetFetch v2+).
     */
    public Map<TopicPartition, Long> committed(int coordinator, String groupId, Collection<TopicPartition> wanted) {
        List<Struct> topics = null;
        if (wanted != null) {
            Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
            wanted.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), unused -> new ArrayList<>())
                    .add(tp.partition()));
            List<Struct> listed = new ArrayList<>();
            byTopic.forEach((name, partitions) -> listed.add(
                    new Struct(OffsetFetchRequest.OffsetFetchRequestTopic.SCHEMA)
                            .set(OffsetFetchRequest.OffsetFetchRequestTopic.NAME, name)
                            .set(OffsetFetchRequest.OffsetFetchRequestTopic.PARTITION_INDEXES, partitions)));
            topics = listed;
        }
        Struct request = new Struct(OffsetFetchRequest.SCHEMA)
                .set(OffsetFetchRequest.GROUP_ID, groupId)
                .set(OffsetFetchRequest.TOPICS, topics);
        Struct response = BrokerConnection.await(cluster.connection(coordinator).send(ApiKey.OFFSET_FETCH, request,
                true), cluster.requestTimeoutMs(), "OffsetFetch");
        ErrorCode groupError = ErrorCode.forCode(response.get(OffsetFetchResponse.ERROR_CODE));
        if (groupError != ErrorCode.NONE) {
            throw new CairnApiException(groupError, "OffsetFetch for group " + groupId);
        }
        Map<TopicPartition, Long> committed = new HashMap<>();
        for (Struct topic : response.get(OffsetFetchResponse.TOPICS)) {
            String name = topic.get(OffsetFetchResponse.OffsetFetchResponseTopic.NAME);
            for (Struct partition : topic.get(OffsetFetchResponse.OffsetFetchResponseTopic.PARTITIONS)) {
                ErrorCode error = ErrorCode.forCode(
                        partition.get(OffsetFetchResponse.OffsetFetchResponsePartition.ERROR_CODE));
                if (error != ErrorCode.NONE) {
                    throw new CairnApiException(error, "OffsetFetch for group " + groupId);
                }
                long offset = partition.get(OffsetFetchResponse.OffsetFetchResponsePartition.COMMITTED_OFFSET);
                if (offset >= 0) {
                    committed.put(new TopicPartition(name,
                            partition.get(OffsetFetchResponse.OffsetFetchResponsePartition.PARTITION_INDEX)), offset);
                }
            }
        }
        return committed;
    }

    /** Rethrows a failed future's cause as the CairnException it is. */
    public static CairnException unwrap(Throwable failure) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof CairnException ? (CairnException) cause
                : new CairnException(cause.toString(), false, cause);
    }
}
