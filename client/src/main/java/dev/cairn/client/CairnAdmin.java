package dev.cairn.client;

import dev.cairn.client.internal.BrokerConnection;
import dev.cairn.client.internal.ClusterClient;
import dev.cairn.client.internal.ClusterMetadata;
import dev.cairn.client.internal.OffsetsClient;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.CreatePartitionsResponse;
import dev.cairn.protocol.message.CreateTopicsRequest;
import dev.cairn.protocol.message.CreateTopicsResponse;
import dev.cairn.protocol.message.DeleteTopicsRequest;
import dev.cairn.protocol.message.DeleteTopicsResponse;
import dev.cairn.protocol.message.DescribeClusterRequest;
import dev.cairn.protocol.message.DescribeClusterResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Topic and cluster administration. Every call blocks until the broker answers, retrying retriable errors (for
 * instance NOT_CONTROLLER after a metadata refresh) until default.api.timeout.ms; the exception it then throws
 * says whether trying again may help. Thread-safe.
 */
public final class CairnAdmin implements AutoCloseable {
    /** ListOffsets: the first offset still in the log. */
    public static final long EARLIEST = OffsetsClient.EARLIEST_TIMESTAMP;
    /** ListOffsets: the offset the next record will get. */
    public static final long LATEST = OffsetsClient.LATEST_TIMESTAMP;
    /** Longest pause between admin retries (the first is retry.backoff.ms, doubling from there). */
    private static final long RETRY_BACKOFF_MAX_MS = 1_000;

    private final AdminConfig config;
    private final ClusterClient cluster;
    private final OffsetsClient offsets;

    private CairnAdmin(AdminConfig config) {
        this.config = config;
        this.cluster = new ClusterClient(config.bootstrapServers(), config.clientId(), config.requestTimeoutMs(),
                System::currentTimeMillis);
        this.offsets = new OffsetsClient(cluster);
    }

    public static CairnAdmin create(AdminConfig config) {
        return new CairnAdmin(config);
    }

    /** Creates topics on the controller; an existing topic fails with TOPIC_ALREADY_EXISTS (not retriable). */
    public void createTopics(Collection<NewTopic> topics) {
        List<Struct> creatable = new ArrayList<>();
        for (NewTopic topic : topics) {
            List<Struct> configs = new ArrayList<>();
            topic.configs().forEach((key, value) -> configs.add(new Struct(
                    CreateTopicsRequest.CreatableTopicConfig.SCHEMA)
                    .set(CreateTopicsRequest.CreatableTopicConfig.NAME, key)
                    .set(CreateTopicsRequest.CreatableTopicConfig.VALUE, value)));
            creatable.add(new Struct(CreateTopicsRequest.CreatableTopic.SCHEMA)
                    .set(CreateTopicsRequest.CreatableTopic.NAME, topic.name())
                    .set(CreateTopicsRequest.CreatableTopic.NUM_PARTITIONS, topic.partitions())
                    .set(CreateTopicsRequest.CreatableTopic.REPLICATION_FACTOR, topic.replicationFactor())
                    .set(CreateTopicsRequest.CreatableTopic.ASSIGNMENTS, List.of())
                    .set(CreateTopicsRequest.CreatableTopic.CONFIGS, configs));
        }
        Struct request = new Struct(CreateTopicsRequest.SCHEMA)
                .set(CreateTopicsRequest.TOPICS, creatable)
                .set(CreateTopicsRequest.TIMEOUT_MS, config.requestTimeoutMs())
                .set(CreateTopicsRequest.VALIDATE_ONLY, false);
        withRetries("CreateTopics", () -> {
            Struct response = call(controller(), ApiKey.CREATE_TOPICS, request);
            for (Struct result : response.get(CreateTopicsResponse.TOPICS)) {
                checkTopicError("CreateTopics", result.get(CreateTopicsResponse.CreatableTopicResult.NAME),
                        result.get(CreateTopicsResponse.CreatableTopicResult.ERROR_CODE));
            }
            return null;
        });
    }

    /**
     * Grows topics to the given total partition counts on the controller (Kafka's createPartitions with
     * {@code NewPartitions.increaseTo}); the new partitions get the topic's replication factor and are placed by
     * the broker. A count that is not an increase fails with INVALID_PARTITIONS, an unknown topic with
     * UNKNOWN_TOPIC_OR_PARTITION, a count above the broker's limit with INVALID_PARTITIONS: none of them retriable.
     * NOT_CONTROLLER and REQUEST_TIMED_OUT are retried for the topics not yet grown until default.api.timeout.ms
     * (then thrown as retriable); a topic whose earlier attempt timed out and that now has exactly the
     * requested count counts as grown, since that attempt was applied.
     */
    public void createPartitions(Map<String, Integer> newTotalCounts) {
        Map<String, Integer> pending = new TreeMap<>(newTotalCounts);
        Set<String> outcomeUnknown = new HashSet<>();
        withRetries("CreatePartitions", () -> {
            List<Struct> growing = new ArrayList<>();
            pending.forEach((topic, count) -> growing.add(
                    new Struct(CreatePartitionsRequest.CreatePartitionsTopic.SCHEMA)
                    .set(CreatePartitionsRequest.CreatePartitionsTopic.NAME, topic)
                    .set(CreatePartitionsRequest.CreatePartitionsTopic.COUNT, count)
                    .set(CreatePartitionsRequest.CreatePartitionsTopic.ASSIGNMENTS, null)));
            Struct request = new Struct(CreatePartitionsRequest.SCHEMA)
                    .set(CreatePartitionsRequest.TOPICS, growing)
                    .set(CreatePartitionsRequest.TIMEOUT_MS, config.requestTimeoutMs())
                    .set(CreatePartitionsRequest.VALIDATE_ONLY, false);
            Struct response = call(controller(), ApiKey.CREATE_PARTITIONS, request);
            CairnApiException retry = null;
            for (Struct result : response.get(CreatePartitionsResponse.RESULTS)) {
                String topic = result.get(CreatePartitionsResponse.CreatePartitionsTopicResult.NAME);
                ErrorCode error = ErrorCode.forCode(
                        result.get(CreatePartitionsResponse.CreatePartitionsTopicResult.ERROR_CODE));
                String message = result.get(CreatePartitionsResponse.CreatePartitionsTopicResult.ERROR_MESSAGE);
                if (error == ErrorCode.NONE
                        || (error == ErrorCode.INVALID_PARTITIONS && outcomeUnknown.contains(topic)
                        && Integer.valueOf(partitionCount(topic)).equals(pending.get(topic)))) {
                    pending.remove(topic);
                    continue;
                }
                // Only a moved controller or an unknown outcome is worth another attempt; any other answer is the
                // controller's decision about the topic (kafka-clients' Admin retries only NOT_CONTROLLER here).
                boolean retriable = error == ErrorCode.NOT_CONTROLLER || error == ErrorCode.REQUEST_TIMED_OUT;
                CairnApiException failed = new CairnApiException(error, "CreatePartitions for topic " + topic
                        + (message == null ? "" : " (" + message + ")"), retriable);
                if (!failed.isRetriable()) {
                    throw failed;
                }
                if (error == ErrorCode.REQUEST_TIMED_OUT) {
                    outcomeUnknown.add(topic);
                }
                retry = failed;
            }
            if (retry != null) {
                throw retry;
            }
            return null;
        });
    }

    private int partitionCount(String topic) {
        ClusterMetadata.TopicMetadata described = cluster.refreshMetadata(List.of(topic), false).topics().get(topic);
        return described == null || described.error() != ErrorCode.NONE ? -1 : described.partitions().size();
    }

    /** Deletes topics on the controller; an unknown topic fails with UNKNOWN_TOPIC_OR_PARTITION (final). */
    public void deleteTopics(Collection<String> topics) {
        Struct request = new Struct(DeleteTopicsRequest.SCHEMA)
                .set(DeleteTopicsRequest.TOPIC_NAMES, List.copyOf(topics))
                .set(DeleteTopicsRequest.TIMEOUT_MS, config.requestTimeoutMs());
        withRetries("DeleteTopics", () -> {
            Struct response = call(controller(), ApiKey.DELETE_TOPICS, request);
            for (Struct result : response.get(DeleteTopicsResponse.RESPONSES)) {
                checkTopicError("DeleteTopics", result.get(DeleteTopicsResponse.DeletableTopicResult.NAME),
                        result.get(DeleteTopicsResponse.DeletableTopicResult.ERROR_CODE));
            }
            return null;
        });
    }

    /** The names of all non-internal topics. */
    public Set<String> listTopics() {
        ClusterMetadata metadata = withRetries("Metadata", () -> cluster.refreshMetadata(null, false));
        Set<String> names = new TreeSet<>();
        metadata.topics().values().forEach(topic -> {
            if (!topic.internal() && topic.error() == ErrorCode.NONE) {
                names.add(topic.name());
            }
        });
        return names;
    }

    /** Describes topics; an unknown topic fails with UNKNOWN_TOPIC_OR_PARTITION. */
    public Map<String, TopicDescription> describeTopics(Collection<String> topics) {
        ClusterMetadata metadata = withRetries("Metadata", () -> cluster.refreshMetadata(List.copyOf(topics),
                false));
        Map<String, TopicDescription> described = new HashMap<>();
        for (String topic : topics) {
            ClusterClient.checkTopic(metadata, topic);
            ClusterMetadata.TopicMetadata found = metadata.topics().get(topic);
            List<TopicDescription.PartitionInfo> partitions = new ArrayList<>();
            found.partitions().forEach(p -> partitions.add(new TopicDescription.PartitionInfo(p.partition(),
                    p.leaderId(), p.replicas(), p.isr())));
            described.put(topic, new TopicDescription(topic, found.internal(), List.copyOf(partitions)));
        }
        return described;
    }

    /** Offsets for {@link #EARLIEST}, {@link #LATEST} or a timestamp in ms, per partition. */
    public Map<TopicPartition, Long> listOffsets(Map<TopicPartition, Long> specs) {
        return withRetries("ListOffsets", () -> offsets.listOffsets(specs));
    }

    /**
     * Every offset {@code groupId} has committed, per partition (what {@code kafka-consumer-groups --describe}
     * shows beside the log end offsets). A group that committed nothing gives an empty map.
     */
    public Map<TopicPartition, Long> listConsumerGroupOffsets(String groupId) {
        return withRetries("OffsetFetch", () -> offsets.committed(offsets.findCoordinator(groupId), groupId, null));
    }

    /**
     * Sets a group's committed offsets (Kafka's alterConsumerGroupOffsets, e.g. to rewind a stopped group). The
     * coordinator refuses it with UNKNOWN_MEMBER_ID while the group has active members, as Kafka does.
     */
    public void alterConsumerGroupOffsets(String groupId, Map<TopicPartition, Long> committed) {
        withRetries("OffsetCommit", () -> {
            try {
                offsets.commit(offsets.findCoordinator(groupId), groupId, committed)
                        .get(config.requestTimeoutMs(), TimeUnit.MILLISECONDS);
                return null;
            } catch (ExecutionException failed) {
                throw OffsetsClient.unwrap(failed);
            } catch (TimeoutException timedOut) {
                throw new CairnTimeoutException("OffsetCommit for group " + groupId + " timed out after "
                        + config.requestTimeoutMs() + " ms");
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new CairnException("OffsetCommit interrupted", true, interrupted);
            }
        });
    }

    /** The cluster id, controller and brokers (DescribeCluster, or Metadata where DescribeCluster is missing). */
    public ClusterDescription describeCluster() {
        return withRetries("DescribeCluster", () -> {
            BrokerConnection connection = cluster.anyConnection();
            if (connection.version(ApiKey.DESCRIBE_CLUSTER) < 0) {
                ClusterMetadata metadata = cluster.refreshMetadata(List.of(), false);
                List<ClusterDescription.Node> nodes = new ArrayList<>();
                metadata.brokers().forEach((id, address) -> nodes.add(new ClusterDescription.Node(id,
                        address.host(), address.port())));
                return new ClusterDescription(metadata.clusterId(), metadata.controllerId(), List.copyOf(nodes));
            }
            Struct response = call(connection, ApiKey.DESCRIBE_CLUSTER, new Struct(DescribeClusterRequest.SCHEMA));
            ErrorCode error = ErrorCode.forCode(response.get(DescribeClusterResponse.ERROR_CODE));
            if (error != ErrorCode.NONE) {
                throw new CairnApiException(error, "DescribeCluster");
            }
            List<ClusterDescription.Node> nodes = new ArrayList<>();
            for (Struct broker : response.get(DescribeClusterResponse.BROKERS)) {
                nodes.add(new ClusterDescription.Node(
                        broker.get(DescribeClusterResponse.DescribeClusterBroker.BROKER_ID),
                        broker.get(DescribeClusterResponse.DescribeClusterBroker.HOST),
                        broker.get(DescribeClusterResponse.DescribeClusterBroker.PORT)));
            }
            return new ClusterDescription(response.get(DescribeClusterResponse.CLUSTER_ID),
                    response.get(DescribeClusterResponse.CONTROLLER_ID), List.copyOf(nodes));
        });
    }

    /** Create and delete go to the controller named by Metadata (kafka-protocol.md A.1 "Admin routing"). */
    private BrokerConnection controller() {
        ClusterMetadata metadata = cluster.refreshMetadata(List.of(), false);
        if (metadata.controllerId() < 0) {
            throw new CairnApiException(ErrorCode.NOT_CONTROLLER, "no controller known");
        }
        return cluster.connection(metadata.controllerId());
    }

    private Struct call(BrokerConnection connection, ApiKey apiKey, Struct request) {
        return BrokerConnection.await(connection.send(apiKey, request, true), config.requestTimeoutMs(),
                apiKey.apiName());
    }

    /**
     * A topic's result in the controller's answer to CreateTopics or DeleteTopics. Only NOT_CONTROLLER (the
     * controller moved) is retried; any other error is the controller's decision about the topic and final for
     * this call, as in kafka-clients' Admin. Retrying UNKNOWN_TOPIC_OR_PARTITION on a delete, for instance, only
     * waited out default.api.timeout.ms.
     */
    private static void checkTopicError(String api, String topic, short code) {
        ErrorCode error = ErrorCode.forCode(code);
        if (error != ErrorCode.NONE) {
            throw new CairnApiException(error, api + " for topic " + topic, error == ErrorCode.NOT_CONTROLLER);
        }
    }

    /**
     * Runs a call, retrying retriable failures until default.api.timeout.ms, with a backoff from retry.backoff.ms
     * doubling to 1 s.
     */
    private <T> T withRetries(String what, Supplier<T> call) {
        long deadlineMs = System.currentTimeMillis() + config.defaultApiTimeoutMs();
        long backoffMs = Math.min(RETRY_BACKOFF_MAX_MS, config.retryBackoffMs());
        while (true) {
            try {
                return call.get();
            } catch (CairnException failed) {
                long remainingMs = deadlineMs - System.currentTimeMillis();
                if (!failed.isRetriable() || remainingMs <= 0) {
                    throw failed;
                }
                sleep(Math.min(backoffMs, remainingMs), what);
                backoffMs = Math.min(RETRY_BACKOFF_MAX_MS, backoffMs * 2);
            }
        }
    }

    private static void sleep(long ms, String what) {
        try {
            // A bounded retry backoff; no event can end it early.
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CairnException(what + " interrupted", true, interrupted);
        }
    }

    @Override
    public void close() {
        cluster.close();
    }
}
