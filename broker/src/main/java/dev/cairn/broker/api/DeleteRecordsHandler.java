package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DeleteRecordsRequest;
import dev.cairn.protocol.message.DeleteRecordsRequest.DeleteRecordsPartition;
import dev.cairn.protocol.message.DeleteRecordsRequest.DeleteRecordsTopic;
import dev.cairn.protocol.message.DeleteRecordsResponse;
import dev.cairn.protocol.message.DeleteRecordsResponse.DeleteRecordsPartitionResult;
import dev.cairn.protocol.message.DeleteRecordsResponse.DeleteRecordsTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteRecords (key 21), versions 0-2 ({@code kafka-delete-records}, {@code Admin.deleteRecords}, Kafka Streams
 * purging its repartition topics): moves each partition's log start offset up to the requested offset, through the
 * partition's Raft group, so every replica deletes the same records at the same log position and the new start
 * survives restarts (snapshots record it, later commands are replayed). Offset -1 means the high watermark.
 * Answered by the partition's leader with the new low watermark; others answer NOT_LEADER_OR_FOLLOWER. An offset
 * below -1 or above the high watermark is OFFSET_OUT_OF_RANGE, as in Kafka; an offset at or below the current start
 * changes nothing and answers the current start. The records of an internal topic cannot be deleted:
 * INVALID_TOPIC_EXCEPTION, as Kafka's ReplicaManager.deleteRecordsOnLocalLog answers.
 */
public final class DeleteRecordsHandler implements RequestHandler {
    static final long NO_LOW_WATERMARK = -1;
    /** The longest the request's own timeout may hold a deletion (Kafka's request.timeout.ms default). */
    static final long TIMEOUT_MS_MAX = 30_000;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public DeleteRecordsHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        long timeoutMs = Math.max(1, Math.min(TIMEOUT_MS_MAX, body.get(DeleteRecordsRequest.TIMEOUT_MS)));
        Set<TopicPartition> seen = new HashSet<>();
        Set<TopicPartition> duplicated = new HashSet<>();
        for (Struct topic : body.get(DeleteRecordsRequest.TOPICS)) {
            for (Struct partition : topic.get(DeleteRecordsTopic.PARTITIONS)) {
                TopicPartition tp = new TopicPartition(topic.get(DeleteRecordsTopic.NAME),
                        partition.get(DeleteRecordsPartition.PARTITION_INDEX));
                if (!seen.add(tp)) {
                    duplicated.add(tp);
                }
            }
        }
        Map<String, List<CompletableFuture<Struct>>> answers = new LinkedHashMap<>();
        for (Struct topic : body.get(DeleteRecordsRequest.TOPICS)) {
            String name = topic.get(DeleteRecordsTopic.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            boolean deletable = context.session().allowedOnTopic(AclOperation.DELETE, name);
            List<CompletableFuture<Struct>> topicAnswers = answers.computeIfAbsent(name, k -> new ArrayList<>());
            for (Struct partition : topic.get(DeleteRecordsTopic.PARTITIONS)) {
                int index = partition.get(DeleteRecordsPartition.PARTITION_INDEX);
                long offset = partition.get(DeleteRecordsPartition.OFFSET);
                TopicPartition tp = new TopicPartition(name, index);
                if (!deletable) {
                    topicAnswers.add(done(index, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
                } else if (duplicated.contains(tp)) {
                    topicAnswers.add(done(index, ErrorCode.INVALID_REQUEST));
                } else if (info == null || index < 0 || index >= info.partitionCount()) {
                    topicAnswers.add(done(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
                } else if (InternalTopics.isInternal(name)) {
                    topicAnswers.add(done(index, ErrorCode.INVALID_TOPIC_EXCEPTION));
                } else if (offset < Command.DeleteRecords.HIGH_WATERMARK) {
                    topicAnswers.add(done(index, ErrorCode.OFFSET_OUT_OF_RANGE));
                } else if (partitions.leaderReplica(tp).isEmpty()) {
                    topicAnswers.add(done(index, ErrorCode.NOT_LEADER_OR_FOLLOWER));
                } else {
                    topicAnswers.add(partitions.submit(tp, new Command.DeleteRecords(offset), timeoutMs)
                            .thenApply(result -> answer(index, result)));
                }
            }
        }
        List<CompletableFuture<Struct>> all = new ArrayList<>();
        answers.values().forEach(all::addAll);
        return ProduceHandler.allOf(all).thenApply(ignored -> {
            List<Struct> topics = new ArrayList<>();
            for (Map.Entry<String, List<CompletableFuture<Struct>>> topic : answers.entrySet()) {
                topics.add(new Struct(DeleteRecordsTopicResult.SCHEMA)
                        .set(DeleteRecordsTopicResult.NAME, topic.getKey())
                        .set(DeleteRecordsTopicResult.PARTITIONS, topic.getValue().stream()
                                .map(CompletableFuture::join).toList()));
            }
            return new Struct(DeleteRecordsResponse.SCHEMA)
                    .set(DeleteRecordsResponse.THROTTLE_TIME_MS, 0)
                    .set(DeleteRecordsResponse.TOPICS, topics);
        });
    }

    private static Struct answer(int index, Result result) {
        if (result instanceof Result.Retained retained) {
            return partitionResult(index, retained.logStartOffset(), ErrorCode.NONE);
        }
        ErrorCode error = result instanceof Result.Rejected rejected ? rejected.error()
                : ErrorCode.UNKNOWN_SERVER_ERROR;
        return partitionResult(index, NO_LOW_WATERMARK, error);
    }

    private static CompletableFuture<Struct> done(int index, ErrorCode error) {
        return CompletableFuture.completedFuture(partitionResult(index, NO_LOW_WATERMARK, error));
    }

    private static Struct partitionResult(int index, long lowWatermark, ErrorCode error) {
        return new Struct(DeleteRecordsPartitionResult.SCHEMA)
                .set(DeleteRecordsPartitionResult.PARTITION_INDEX, index)
                .set(DeleteRecordsPartitionResult.LOW_WATERMARK, lowWatermark)
                .set(DeleteRecordsPartitionResult.ERROR_CODE, error.code());
    }
}
