package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionReassignment;
import dev.cairn.broker.cluster.ReplicaLimit;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest.ReassignablePartition;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest.ReassignableTopic;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse.ReassignablePartitionResponse;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse.ReassignableTopicResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * AlterPartitionReassignments (key 45), versions 0-1 ({@code kafka-reassign-partitions --execute/--cancel},
 * {@code Admin.alterPartitionReassignments}), answered by any broker (Admin sends it to the broker Metadata names
 * controller): each partition's new replica list, or null to cancel its reassignment, goes to the metadata group as
 * one command; the partition's leader then moves the replicas through its Raft group (see
 * {@code raft.ReassignmentDriver}). The answer says the reassignment started, as Kafka's does; its progress shows in
 * ListPartitionReassignments and Metadata.
 */
public final class AlterPartitionReassignmentsHandler implements RequestHandler {
    private final MetadataService metadata;

    public AlterPartitionReassignmentsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        boolean allowRfChange = request.apiVersion() < 1
                || body.get(AlterPartitionReassignmentsRequest.ALLOW_REPLICATION_FACTOR_CHANGE);
        boolean authorized = context.session().allowedOnCluster(AclOperation.ALTER);
        MetadataImage image = metadata.image();
        Map<String, Map<Integer, CompletableFuture<Struct>>> results = new LinkedHashMap<>();
        int named = 0;
        for (Struct topic : body.get(AlterPartitionReassignmentsRequest.TOPICS)) {
            String name = topic.get(ReassignableTopic.NAME);
            Map<Integer, CompletableFuture<Struct>> partitions = results.computeIfAbsent(name,
                    k -> new LinkedHashMap<>());
            for (Struct partition : topic.get(ReassignableTopic.PARTITIONS)) {
                int index = partition.get(ReassignablePartition.PARTITION_INDEX);
                List<Integer> replicas = partition.get(ReassignablePartition.REPLICAS);
                if (!authorized) {
                    partitions.put(index, done(index, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null));
                } else if (++named > Limits.REASSIGNMENTS_PER_REQUEST_MAX) {
                    partitions.put(index, done(index, ErrorCode.POLICY_VIOLATION, "one request reassigns "
                            + Limits.REASSIGNMENTS_PER_REQUEST_MAX + " partitions at most"));
                } else {
                    partitions.put(index, reassign(image, new TopicPartition(name, index), replicas, allowRfChange));
                }
            }
        }
        List<CompletableFuture<Struct>> all = new ArrayList<>();
        results.values().forEach(partitions -> all.addAll(partitions.values()));
        return ProduceHandler.allOf(all).thenApply(ignored -> response(request.apiVersion(), allowRfChange,
                results));
    }

    private CompletableFuture<Struct> reassign(MetadataImage image, TopicPartition tp, List<Integer> replicas,
            boolean allowRfChange) {
        Optional<TopicInfo> topic = image.topic(tp.topic());
        if (topic.isEmpty() || tp.partition() < 0 || tp.partition() >= topic.get().partitionCount()) {
            return done(tp.partition(), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition");
        }
        if (replicas != null) {
            if (replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
                return done(tp.partition(), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "the replica list " + replicas
                        + " is empty or names a broker twice");
            }
            if (!image.brokers().keySet().containsAll(replicas)) {
                return done(tp.partition(), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "the replica list " + replicas
                        + " names a broker that is not registered (registered: " + image.brokers().keySet() + ")");
            }
            int currentFactor = image.reassignment(tp).map(PartitionReassignment::original)
                    .orElse(topic.get().replicas().get(tp.partition())).size();
            if (!allowRfChange && replicas.size() != currentFactor) {
                return done(tp.partition(), ErrorCode.INVALID_REPLICATION_FACTOR, "the replication factor would "
                        + "change from " + currentFactor + " to " + replicas.size() + " and the request forbids it");
            }
            List<Integer> adding = new ArrayList<>(replicas);
            adding.removeAll(topic.get().replicas().get(tp.partition()));
            Optional<String> overLimit = ReplicaLimit.exceeded(image, List.of(adding),
                    Limits.PARTITIONS_PER_BROKER_MAX);
            if (overLimit.isPresent()) {
                return done(tp.partition(), ErrorCode.POLICY_VIOLATION, overLimit.get());
            }
        }
        MetadataCommand command = new MetadataCommand.ReassignPartition(tp.topic(), topic.get().topicId(),
                tp.partition(), replicas == null ? List.of() : replicas);
        return metadata.submit(command).thenApply(result -> result instanceof MetadataResult.Rejected rejected
                ? result(tp.partition(), rejected.error(), rejected.message())
                : result(tp.partition(), ErrorCode.NONE, null));
    }

    private static CompletableFuture<Struct> done(int partition, ErrorCode error, String message) {
        return CompletableFuture.completedFuture(result(partition, error, message));
    }

    private static Struct result(int partition, ErrorCode error, String message) {
        return new Struct(ReassignablePartitionResponse.SCHEMA)
                .set(ReassignablePartitionResponse.PARTITION_INDEX, partition)
                .set(ReassignablePartitionResponse.ERROR_CODE, error.code())
                .set(ReassignablePartitionResponse.ERROR_MESSAGE, message);
    }

    private static Struct response(short version, boolean allowRfChange,
            Map<String, Map<Integer, CompletableFuture<Struct>>> results) {
        List<Struct> topics = new ArrayList<>();
        results.forEach((name, partitions) -> topics.add(new Struct(ReassignableTopicResponse.SCHEMA)
                .set(ReassignableTopicResponse.NAME, name)
                .set(ReassignableTopicResponse.PARTITIONS, partitions.values().stream()
                        .map(CompletableFuture::join).toList())));
        Struct response = new Struct(AlterPartitionReassignmentsResponse.SCHEMA)
                .set(AlterPartitionReassignmentsResponse.THROTTLE_TIME_MS, 0)
                .set(AlterPartitionReassignmentsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(AlterPartitionReassignmentsResponse.ERROR_MESSAGE, null)
                .set(AlterPartitionReassignmentsResponse.RESPONSES, topics);
        if (version >= 1) {
            response.set(AlterPartitionReassignmentsResponse.ALLOW_REPLICATION_FACTOR_CHANGE, allowRfChange);
        }
        return response;
    }
}
