package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicaAssigner;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Proposes new topics, and new partitions of existing topics, to the metadata group: picks the topic id and a
 * replica assignment over the registered brokers, so the replicated command carries every decision and applying
 * it is deterministic.
 */
public final class TopicCreator {
    private final MetadataService metadata;
    private final Supplier<UUID> topicIds;
    private final int replicasPerBrokerMax;

    public TopicCreator(MetadataService metadata, Supplier<UUID> topicIds) {
        this(metadata, topicIds, dev.cairn.broker.config.Limits.PARTITIONS_PER_BROKER_MAX);
    }

    /** @param replicasPerBrokerMax the partition replicas one broker may host (its Raft engine's limit) */
    public TopicCreator(MetadataService metadata, Supplier<UUID> topicIds, int replicasPerBrokerMax) {
        this.metadata = metadata;
        this.topicIds = topicIds;
        this.replicasPerBrokerMax = replicasPerBrokerMax;
    }

    /** Why the topic cannot be assigned (too few brokers), or null when it can. */
    public MetadataResult.Rejected checkAssignable(int replicationFactor) {
        int brokers = metadata.image().brokers().size();
        if (replicationFactor < 1 || replicationFactor > brokers) {
            return new MetadataResult.Rejected(ErrorCode.INVALID_REPLICATION_FACTOR, "replication factor "
                    + replicationFactor + " is outside [1, " + brokers + "] (the registered brokers)");
        }
        return null;
    }

    /**
     * POLICY_VIOLATION when the new partitions' replicas would put a broker over its replica limit
     * ({@link dev.cairn.broker.config.Limits#PARTITIONS_PER_BROKER_MAX} on Ratis), or null.
     */
    public MetadataResult.Rejected checkReplicaLimit(List<List<Integer>> addedReplicas) {
        return dev.cairn.broker.cluster.ReplicaLimit.exceeded(metadata.image(), addedReplicas, replicasPerBrokerMax)
                .map(reason -> new MetadataResult.Rejected(ErrorCode.POLICY_VIOLATION, reason)).orElse(null);
    }

    public TopicInfo plan(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        List<Integer> brokers = new ArrayList<>(metadata.image().brokers().keySet());
        return new TopicInfo(name, topicIds.get(),
                ReplicaAssigner.assign(brokers, partitions, replicationFactor, name.hashCode()), configs);
    }

    /** Proposes a topic whose replica assignment the client chose (CreateTopics with explicit assignments). */
    public CompletableFuture<MetadataResult> create(TopicInfo planned) {
        return metadata.submit(new MetadataCommand.CreateTopic(planned));
    }

    public TopicInfo planAssigned(String name, List<List<Integer>> replicas, Map<String, String> configs) {
        return new TopicInfo(name, topicIds.get(), replicas, configs);
    }

    public CompletableFuture<MetadataResult> create(String name, int partitions, int replicationFactor,
            Map<String, String> configs) {
        MetadataResult.Rejected unassignable = checkAssignable(replicationFactor);
        if (unassignable != null) {
            return CompletableFuture.completedFuture(unassignable);
        }
        TopicInfo planned = plan(name, partitions, replicationFactor, configs);
        MetadataResult.Rejected overLimit = checkReplicaLimit(planned.replicas());
        if (overLimit != null) {
            return CompletableFuture.completedFuture(overLimit);
        }
        return metadata.submit(new MetadataCommand.CreateTopic(planned));
    }

    /**
     * Replicas for the partitions {@code topic} gains when it grows to {@code newPartitionCount}, with the topic's
     * replication factor: the assignment CreateTopics would have made for a topic of that many partitions, so
     * leaders go on round-robin from where the existing partitions left off (when the brokers are the same).
     */
    public List<List<Integer>> planAddedPartitions(TopicInfo topic, int newPartitionCount) {
        List<Integer> brokers = new ArrayList<>(metadata.image().brokers().keySet());
        return ReplicaAssigner.assign(brokers, newPartitionCount, topic.replicationFactor(), topic.name().hashCode())
                .subList(topic.partitionCount(), newPartitionCount);
    }

    /** Proposes appending partitions with these replicas to {@code topic} as this broker last saw it. */
    public CompletableFuture<MetadataResult> addPartitions(TopicInfo topic, List<List<Integer>> addedReplicas) {
        return metadata.submit(new MetadataCommand.AddPartitions(topic.name(), topic.topicId(),
                topic.partitionCount(), addedReplicas));
    }
}
