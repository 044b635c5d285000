package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.CommittedView;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.ProducerStateTable.ProducerSummary;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeProducersRequest;
import dev.cairn.protocol.message.DescribeProducersRequest.TopicRequest;
import dev.cairn.protocol.message.DescribeProducersResponse;
import dev.cairn.protocol.message.DescribeProducersResponse.PartitionResponse;
import dev.cairn.protocol.message.DescribeProducersResponse.ProducerState;
import dev.cairn.protocol.message.DescribeProducersResponse.TopicResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeProducers (key 61), version 0, at each partition's leader: the producers the partition remembers (the
 * idempotence window), each with its epoch, last sequence and timestamp, and the first offset of its open
 * transaction (-1 when none), which is how {@code kafka-transactions.sh find-hanging} finds a transaction nobody
 * ends. The coordinator epoch is not kept per producer: -1.
 */
public final class DescribeProducersHandler implements RequestHandler {
    private static final int NO_COORDINATOR_EPOCH = -1;
    private static final long NO_OPEN_TRANSACTION = -1;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public DescribeProducersHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> topics = new ArrayList<>();
        for (Struct topic : request.body().get(DescribeProducersRequest.TOPICS)) {
            String name = topic.get(TopicRequest.NAME);
            TopicInfo info = metadata.image().topics().get(name);
            boolean readable = context.session().allowedOnTopic(AclOperation.READ, name);
            List<Struct> answers = new ArrayList<>();
            for (int index : topic.get(TopicRequest.PARTITION_INDEXES)) {
                answers.add(!readable ? error(index, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                        : info == null || index < 0 || index >= info.partitionCount()
                        ? error(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                        : describe(new TopicPartition(name, index)));
            }
            topics.add(new Struct(TopicResponse.SCHEMA).set(TopicResponse.NAME, name)
                    .set(TopicResponse.PARTITIONS, answers));
        }
        return CompletableFuture.completedFuture(new Struct(DescribeProducersResponse.SCHEMA)
                .set(DescribeProducersResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeProducersResponse.TOPICS, topics));
    }

    private Struct describe(TopicPartition tp) {
        Optional<Partition> led = partitions.leaderReplica(tp);
        if (led.isEmpty()) {
            return error(tp.partition(), ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        CommittedView view = led.get().committedView();
        List<Struct> producers = new ArrayList<>();
        for (ProducerSummary producer : view.producers().summaries()) {
            producers.add(new Struct(ProducerState.SCHEMA)
                    .set(ProducerState.PRODUCER_ID, producer.producerId())
                    .set(ProducerState.PRODUCER_EPOCH, (int) producer.epoch())
                    .set(ProducerState.LAST_SEQUENCE, producer.lastSequence())
                    .set(ProducerState.LAST_TIMESTAMP, producer.lastTimestampMs())
                    .set(ProducerState.COORDINATOR_EPOCH, NO_COORDINATOR_EPOCH)
                    .set(ProducerState.CURRENT_TXN_START_OFFSET,
                            view.openTransactions().getOrDefault(producer.producerId(), NO_OPEN_TRANSACTION)));
        }
        return new Struct(PartitionResponse.SCHEMA)
                .set(PartitionResponse.PARTITION_INDEX, tp.partition())
                .set(PartitionResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(PartitionResponse.ERROR_MESSAGE, null)
                .set(PartitionResponse.ACTIVE_PRODUCERS, producers);
    }

    private static Struct error(int partition, ErrorCode error) {
        return new Struct(PartitionResponse.SCHEMA)
                .set(PartitionResponse.PARTITION_INDEX, partition)
                .set(PartitionResponse.ERROR_CODE, error.code())
                .set(PartitionResponse.ERROR_MESSAGE, error.name())
                .set(PartitionResponse.ACTIVE_PRODUCERS, List.of());
    }
}
