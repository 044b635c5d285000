package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicNames;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.CreateTopicsRequest;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableReplicaAssignment;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableTopic;
import dev.cairn.protocol.message.CreateTopicsRequest.CreatableTopicConfig;
import dev.cairn.protocol.message.CreateTopicsResponse;
import dev.cairn.protocol.message.CreateTopicsResponse.CreatableTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * CreateTopics (key 19), versions 2-4, served by the controller (the metadata group's leader; Admin sends it
 * there, and any other broker answers NOT_CONTROLLER so that Admin refreshes and retries). Each topic is checked
 * the way Kafka checks it (name rules, existence, partition count, replication factor or an explicit
 * assignment, configs), then proposed to the metadata group; validate-only requests stop after the checks. A
 * created topic is answered once its partitions hosted here have a leader, within the request's timeout, so that
 * a produce right after the answer finds a leader; after the timeout the answer is REQUEST_TIMED_OUT, as Kafka
 * answered when leaders lagged, although the topic exists.
 */
public final class CreateTopicsHandler implements RequestHandler {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CreateTopicsHandler.class);
    /** NumPartitions and ReplicationFactor of -1 ask for the broker defaults (KIP-464). */
    static final int USE_BROKER_DEFAULT = -1;

    private final MetadataService metadata;
    private final TopicCreator creator;
    private final PartitionLeaderWait leaderWait;
    private final LongSupplier clockMs;
    private final int defaultPartitions;
    private final int defaultReplicationFactor;

    public CreateTopicsHandler(MetadataService metadata, ReplicatedPartitions partitions, TopicCreator creator,
            ScheduledExecutorService timer, LongSupplier clockMs, int defaultPartitions,
            int defaultReplicationFactor) {
        this.metadata = metadata;
        this.creator = creator;
        this.leaderWait = new PartitionLeaderWait(metadata, partitions, timer, clockMs);
        this.clockMs = clockMs;
        this.defaultPartitions = defaultPartitions;
        this.defaultReplicationFactor = defaultReplicationFactor;
    }

    /** A topic ready to propose, or why not. */
    private record Plan(TopicInfo topic, ErrorCode error, String message) {
        static Plan rejected(ErrorCode error, String message) {
            return new Plan(null, error, message);
        }
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        long waitMs = Math.min(Math.max(0, body.get(CreateTopicsRequest.TIMEOUT_MS)),
                PartitionLeaderWait.LEADER_WAIT_MS_MAX);
        long deadlineMs = clockMs.getAsLong() + waitMs;
        boolean validateOnly = body.get(CreateTopicsRequest.VALIDATE_ONLY);
        List<Struct> topics = body.get(CreateTopicsRequest.TOPICS);
        List<CompletableFuture<Struct>> results = ControllerTopicRequests.answerEach(metadata, topics,
                topic -> topic.get(CreatableTopic.NAME), name -> "topic " + name + " is named more than once",
                (name, error, message) -> result(name, error, message),
                name -> context.session().allowedOnCluster(AclOperation.CREATE)
                        || context.session().allowedOnTopic(AclOperation.CREATE, name),
                topic -> create(topic, validateOnly, waitMs, deadlineMs));
        return ProduceHandler.allOf(results).thenApply(list -> new Struct(CreateTopicsResponse.SCHEMA)
                .set(CreateTopicsResponse.THROTTLE_TIME_MS, 0)
                .set(CreateTopicsResponse.TOPICS, list));
    }

    private CompletableFuture<Struct> create(Struct topic, boolean validateOnly, long waitMs, long deadlineMs) {
        String name = topic.get(CreatableTopic.NAME);
        Plan plan = plan(topic, metadata.image());
        if (plan.topic() == null) {
            return result(name, plan.error(), plan.message());
        }
        MetadataResult.Rejected overLimit = creator.checkReplicaLimit(plan.topic().replicas());
        if (overLimit != null) {
            return result(name, overLimit.error(), overLimit.message());
        }
        if (validateOnly) {
            return result(name, ErrorCode.NONE, null);
        }
        return creator.create(plan.topic()).thenCompose(created -> {
            if (created instanceof MetadataResult.Rejected rejected) {
                return result(name, rejected.error(), rejected.message());
            }
            if (!(created instanceof MetadataResult.Ok)) {
                return result(name, ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected metadata result " + created);
            }
            if (waitMs == 0) {
                return result(name, ErrorCode.NONE, null);
            }
            return leaderWait.await(plan.topic(), 0, deadlineMs).thenApply(leaderless -> leaderless.isEmpty()
                    ? resultStruct(name, ErrorCode.NONE, null)
                    : resultStruct(name, ErrorCode.REQUEST_TIMED_OUT, "topic " + name + " was created, but "
                            + "partitions " + leaderless + " had no leader within " + waitMs + " ms"));
        });
    }

    private Plan plan(Struct topic, MetadataImage image) {
        String name = topic.get(CreatableTopic.NAME);
        Optional<String> invalidName = TopicNames.invalidReason(name);
        if (invalidName.isPresent()) {
            return Plan.rejected(ErrorCode.INVALID_TOPIC_EXCEPTION, invalidName.get());
        }
        if (image.topics().containsKey(name)) {
            return Plan.rejected(ErrorCode.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
        }
        Optional<String> collision = TopicNames.collision(name, image.topics().keySet());
        if (collision.isPresent()) {
            return Plan.rejected(ErrorCode.INVALID_TOPIC_EXCEPTION, "topic " + name + " collides with existing "
                    + "topic " + collision.get() + " ('.' and '_' are treated alike)");
        }
        Map<String, String> configs = new TreeMap<>();
        for (Struct config : topic.get(CreatableTopic.CONFIGS)) {
            String key = config.get(CreatableTopicConfig.NAME);
            String value = config.get(CreatableTopicConfig.VALUE);
            Optional<String> invalid = TopicConfigs.invalidReason(key, value);
            if (invalid.isPresent()) {
                return Plan.rejected(ErrorCode.INVALID_CONFIG, invalid.get());
            }
            if (configs.put(key, value) != null) {
                return Plan.rejected(ErrorCode.INVALID_CONFIG, "topic config " + key + " is given more than once");
            }
        }
        int numPartitions = topic.get(CreatableTopic.NUM_PARTITIONS);
        int replicationFactor = topic.get(CreatableTopic.REPLICATION_FACTOR);
        List<Struct> assignments = topic.get(CreatableTopic.ASSIGNMENTS);
        if (!assignments.isEmpty()) {
            if (numPartitions != USE_BROKER_DEFAULT || replicationFactor != USE_BROKER_DEFAULT) {
                return Plan.rejected(ErrorCode.INVALID_REQUEST, "a replica assignment was given, so NumPartitions "
                        + "and ReplicationFactor must be -1, not " + numPartitions + " and " + replicationFactor);
            }
            return planAssigned(name, assignments, configs, image);
        }
        int partitionCount = numPartitions == USE_BROKER_DEFAULT ? defaultPartitions : numPartitions;
        if (partitionCount < 1 || partitionCount > Limits.PARTITIONS_PER_TOPIC_MAX) {
            return Plan.rejected(ErrorCode.INVALID_PARTITIONS, "number of partitions " + numPartitions
                    + " is outside [1, " + Limits.PARTITIONS_PER_TOPIC_MAX + "] (or -1 for the default)");
        }
        int replicas = replicationFactor == USE_BROKER_DEFAULT ? defaultReplicationFactor : replicationFactor;
        MetadataResult.Rejected unassignable = creator.checkAssignable(replicas);
        if (unassignable != null) {
            return Plan.rejected(unassignable.error(), unassignable.message());
        }
        return new Plan(creator.plan(name, partitionCount, replicas, configs), ErrorCode.NONE, null);
    }

    /** Checks a client-chosen assignment: partitions 0..n-1, each on distinct registered brokers, one size. */
    private Plan planAssigned(String name, List<Struct> assignments, Map<String, String> configs,
            MetadataImage image) {
        if (assignments.size() > Limits.PARTITIONS_PER_TOPIC_MAX) {
            return Plan.rejected(ErrorCode.INVALID_PARTITIONS, "number of partitions " + assignments.size()
                    + " exceeds " + Limits.PARTITIONS_PER_TOPIC_MAX);
        }
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (Struct assignment : assignments) {
            int partition = assignment.get(CreatableReplicaAssignment.PARTITION_INDEX);
            List<Integer> brokers = assignment.get(CreatableReplicaAssignment.BROKER_IDS);
            if (byPartition.put(partition, brokers) != null) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partition " + partition
                        + " is assigned more than once");
            }
            if (brokers.isEmpty() || new HashSet<>(brokers).size() != brokers.size()) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partition " + partition + " replicas "
                        + brokers + " are empty or repeat a broker");
            }
            for (int broker : brokers) {
                if (!image.brokers().containsKey(broker)) {
                    return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partition " + partition
                            + " is assigned to broker " + broker + ", which is not registered");
                }
            }
        }
        List<List<Integer>> replicas = new ArrayList<>(byPartition.values());
        int expected = 0;
        for (int partition : byPartition.keySet()) {
            if (partition != expected++) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "assigned partitions "
                        + byPartition.keySet() + " are not the consecutive sequence 0.." + (byPartition.size() - 1));
            }
        }
        for (List<Integer> brokers : replicas) {
            if (brokers.size() != replicas.get(0).size()) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "partitions have different numbers of "
                        + "replicas (" + replicas.get(0).size() + " and " + brokers.size() + ")");
            }
        }
        return new Plan(creator.planAssigned(name, replicas, configs), ErrorCode.NONE, null);
    }

    private static CompletableFuture<Struct> result(String name, ErrorCode error, String message) {
        return CompletableFuture.completedFuture(resultStruct(name, error, message));
    }

    private static Struct resultStruct(String name, ErrorCode error, String message) {
        return new Struct(CreatableTopicResult.SCHEMA)
                .set(CreatableTopicResult.NAME, name)
                .set(CreatableTopicResult.ERROR_CODE, error.code())
                .set(CreatableTopicResult.ERROR_MESSAGE, message);
    }
}
