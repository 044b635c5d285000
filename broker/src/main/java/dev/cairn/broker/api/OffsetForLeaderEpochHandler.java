package dev.cairn.broker.api;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.LeaderEpochs;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetForLeaderEpoch (key 23), versions 2-4 (KIP-101, KIP-320): the end offset of a leader epoch, which a consumer
 * asks for after a leader change to check that its position still lies inside the log ("log truncation detection").
 * Answered by the partition's leader from the partition's {@link LeaderEpochs}; leader epochs are Raft terms, as in
 * Metadata and in every stored batch. The request's current leader epoch fences as in Kafka: older than the leader's
 * is FENCED_LEADER_EPOCH, newer is UNKNOWN_LEADER_EPOCH (the client's metadata is ahead of this broker's), -1 skips
 * the check. Under Raft the log of committed records never loses its end, so a consumer that read committed
 * records always finds its position at or below the answer.
 */
public final class OffsetForLeaderEpochHandler implements RequestHandler {
    /** The current leader epoch meaning "do not check" (Kafka's default). */
    static final int NO_EPOCH = -1;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public OffsetForLeaderEpochHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> topics = new ArrayList<>();
        for (Struct topic : request.body().get(OffsetForLeaderEpochRequest.TOPICS)) {
            String name = topic.get(OffsetForLeaderTopic.TOPIC);
            TopicInfo info = metadata.image().topics().get(name);
            boolean describable = context.session().allowedOnTopic(AclOperation.DESCRIBE, name);
            List<Struct> answers = new ArrayList<>();
            for (Struct partition : topic.get(OffsetForLeaderTopic.PARTITIONS)) {
                int index = partition.get(OffsetForLeaderPartition.PARTITION);
                if (!describable) {
                    answers.add(error(index, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
                } else if (info == null || index < 0 || index >= info.partitionCount()) {
                    answers.add(error(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
                } else {
                    answers.add(endOffset(new TopicPartition(name, index),
                            partition.get(OffsetForLeaderPartition.CURRENT_LEADER_EPOCH),
                            partition.get(OffsetForLeaderPartition.LEADER_EPOCH)));
                }
            }
            topics.add(new Struct(OffsetForLeaderTopicResult.SCHEMA).set(OffsetForLeaderTopicResult.TOPIC, name)
                    .set(OffsetForLeaderTopicResult.PARTITIONS, answers));
        }
        return CompletableFuture.completedFuture(new Struct(OffsetForLeaderEpochResponse.SCHEMA)
                .set(OffsetForLeaderEpochResponse.THROTTLE_TIME_MS, 0)
                .set(OffsetForLeaderEpochResponse.TOPICS, topics));
    }

    private Struct endOffset(TopicPartition tp, int currentLeaderEpoch, int leaderEpoch) {
        Partition partition = partitions.leaderReplica(tp).orElse(null);
        Leadership leadership = partitions.leadership(tp);
        if (partition == null || !leadership.local()) {
            return error(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        ErrorCode fenced = fence(currentLeaderEpoch, leadership.leaderEpoch());
        if (fenced != ErrorCode.NONE) {
            return error(tp.partition(), fenced);
        }
        LeaderEpochs.EndOffset end = partition.endOffsetForEpoch(leaderEpoch, leadership.leaderEpoch());
        return answer(tp.partition(), ErrorCode.NONE, end.epoch(), end.endOffset());
    }

    /** Kafka's check of a client's current leader epoch against the leader's (also used by Fetch). */
    static ErrorCode fence(int clientEpoch, int leaderEpoch) {
        if (clientEpoch == NO_EPOCH) {
            return ErrorCode.NONE;
        }
        if (clientEpoch < leaderEpoch) {
            return ErrorCode.FENCED_LEADER_EPOCH;
        }
        return clientEpoch > leaderEpoch ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NONE;
    }

    private static Struct error(int index, ErrorCode error) {
        return answer(index, error, LeaderEpochs.UNDEFINED_EPOCH, LeaderEpochs.UNDEFINED_OFFSET);
    }

    private static Struct answer(int index, ErrorCode error, int epoch, long endOffset) {
        return new Struct(EpochEndOffset.SCHEMA).set(EpochEndOffset.ERROR_CODE, error.code())
                .set(EpochEndOffset.PARTITION, index).set(EpochEndOffset.LEADER_EPOCH, epoch)
                .set(EpochEndOffset.END_OFFSET, endOffset);
    }
}
