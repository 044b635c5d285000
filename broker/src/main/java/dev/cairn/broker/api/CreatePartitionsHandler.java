package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.CreatePartitionsRequest.CreatePartitionsAssignment;
import dev.cairn.protocol.message.CreatePartitionsRequest.CreatePartitionsTopic;
import dev.cairn.protocol.message.CreatePartitionsResponse;
import dev.cairn.protocol.message.CreatePartitionsResponse.CreatePartitionsTopicResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * CreatePartitions (key 37), versions 0-3 (KIP-195; {@code kafka-topics --alter --partitions},
 * Admin.createPartitions), served by the controller like CreateTopics: any other broker answers NOT_CONTROLLER so
 * that Admin refreshes and retries. Each topic is checked as Kafka's controller checks it (ReplicationControlManager
 * in Kafka 4.x, whose error messages are reused): it must exist, the count must be an increase and within
 * {@link Limits#PARTITIONS_PER_TOPIC_MAX}, and explicit assignments must give each added partition the topic's
 * replication factor in distinct registered brokers. Without assignments the new partitions are placed as
 * CreateTopics places a topic's. The change is proposed to the metadata group as an AddPartitions command;
 * validate-only requests stop after the checks. As for CreateTopics, the answer waits, within the request's
 * timeout, until the new partitions hosted here have leaders; a commit or leaders not seen in time is answered
 * REQUEST_TIMED_OUT (the partitions may exist all the same, as with Kafka). A timeout of 0 answers once the change
 * is committed.
 */
public final class CreatePartitionsHandler implements RequestHandler {
    private final MetadataService metadata;
    private final TopicCreator creator;
    private final PartitionLeaderWait leaderWait;
    private final LongSupplier clockMs;

    public CreatePartitionsHandler(MetadataService metadata, ReplicatedPartitions partitions, TopicCreator creator,
            ScheduledExecutorService timer, LongSupplier clockMs) {
        this.metadata = metadata;
        this.creator = creator;
        this.leaderWait = new PartitionLeaderWait(metadata, partitions, timer, clockMs);
        this.clockMs = clockMs;
    }

    /** The replicas of the partitions to add to a topic, or why it cannot grow. */
    private record Plan(TopicInfo topic, List<List<Integer>> added, ErrorCode error, String message) {
        static Plan rejected(ErrorCode error, String message) {
            return new Plan(null, null, error, message);
        }
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        long waitMs = Math.min(Math.max(0, body.get(CreatePartitionsRequest.TIMEOUT_MS)),
                PartitionLeaderWait.LEADER_WAIT_MS_MAX);
        long deadlineMs = clockMs.getAsLong() + waitMs;
        boolean validateOnly = body.get(CreatePartitionsRequest.VALIDATE_ONLY);
        List<Struct> topics = body.get(CreatePartitionsRequest.TOPICS);
        List<CompletableFuture<Struct>> results = ControllerTopicRequests.answerEach(metadata, topics,
                topic -> topic.get(CreatePartitionsTopic.NAME), name -> "Duplicate topic name: " + name,
                (name, error, message) -> result(name, error, message),
                name -> context.session().allowedOnTopic(AclOperation.ALTER, name),
                topic -> grow(topic, validateOnly, waitMs, deadlineMs));
        return ProduceHandler.allOf(results).thenApply(list -> new Struct(CreatePartitionsResponse.SCHEMA)
                .set(CreatePartitionsResponse.THROTTLE_TIME_MS, 0)
                .set(CreatePartitionsResponse.RESULTS, list));
    }

    private CompletableFuture<Struct> grow(Struct request, boolean validateOnly, long waitMs, long deadlineMs) {
        String name = request.get(CreatePartitionsTopic.NAME);
        Plan plan = plan(request, metadata.image());
        if (plan.topic() == null) {
            return result(name, plan.error(), plan.message());
        }
        MetadataResult.Rejected overLimit = creator.checkReplicaLimit(plan.added());
        if (overLimit != null) {
            return result(name, overLimit.error(), overLimit.message());
        }
        if (validateOnly) {
            return result(name, ErrorCode.NONE, null);
        }
        TopicInfo before = plan.topic();
        CompletableFuture<MetadataResult> committed = creator.addPartitions(before, plan.added());
        if (waitMs > 0) {
            committed = committed.completeOnTimeout(new MetadataResult.Rejected(ErrorCode.REQUEST_TIMED_OUT,
                    "adding partitions to topic " + name + " was not committed within " + waitMs
                            + " ms; they may still be added"), Math.max(0, deadlineMs - clockMs.getAsLong()),
                    TimeUnit.MILLISECONDS);
        }
        return committed.thenCompose(added -> {
            if (added instanceof MetadataResult.Rejected rejected) {
                return result(name, rejected.error(), rejected.message());
            }
            if (!(added instanceof MetadataResult.Ok)) {
                return result(name, ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected metadata result " + added);
            }
            if (waitMs == 0) {
                return result(name, ErrorCode.NONE, null);
            }
            List<List<Integer>> replicas = new ArrayList<>(before.replicas());
            replicas.addAll(plan.added());
            TopicInfo after = new TopicInfo(name, before.topicId(), replicas, before.configs());
            return leaderWait.await(after, before.partitionCount(), deadlineMs).thenApply(leaderless ->
                    leaderless.isEmpty() ? resultStruct(name, ErrorCode.NONE, null)
                    : resultStruct(name, ErrorCode.REQUEST_TIMED_OUT, "partitions were added to topic " + name
                            + ", but partitions " + leaderless + " had no leader within " + waitMs + " ms"));
        });
    }

    private Plan plan(Struct request, MetadataImage image) {
        String name = request.get(CreatePartitionsTopic.NAME);
        TopicInfo topic = image.topics().get(name);
        if (topic == null) {
            return Plan.rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic " + name + " does not exist");
        }
        int count = request.get(CreatePartitionsTopic.COUNT);
        int current = topic.partitionCount();
        if (count == current) {
            return Plan.rejected(ErrorCode.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
        }
        if (count < current) {
            return Plan.rejected(ErrorCode.INVALID_PARTITIONS, "The topic " + name + " currently has " + current
                    + " partition(s); " + count + " would not be an increase.");
        }
        if (count > Limits.PARTITIONS_PER_TOPIC_MAX) {
            return Plan.rejected(ErrorCode.INVALID_PARTITIONS, "The topic " + name + " cannot have " + count
                    + " partitions: at most " + Limits.PARTITIONS_PER_TOPIC_MAX + " per topic are allowed.");
        }
        List<Struct> assignments = request.get(CreatePartitionsTopic.ASSIGNMENTS);
        if (assignments != null) {
            return planAssigned(topic, count, assignments, image);
        }
        MetadataResult.Rejected unassignable = creator.checkAssignable(topic.replicationFactor());
        if (unassignable != null) {
            return Plan.rejected(unassignable.error(), unassignable.message());
        }
        return new Plan(topic, creator.planAddedPartitions(topic, count), ErrorCode.NONE, null);
    }

    /** Checks client-chosen replicas for the added partitions, with Kafka's messages. */
    private static Plan planAssigned(TopicInfo topic, int count, List<Struct> assignments, MetadataImage image) {
        int additional = count - topic.partitionCount();
        if (assignments.size() != additional) {
            return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "Attempted to add " + additional
                    + " additional partition(s), but only " + assignments.size() + " assignment(s) were specified.");
        }
        List<List<Integer>> added = new ArrayList<>(additional);
        for (Struct assignment : assignments) {
            List<Integer> brokers = assignment.get(CreatePartitionsAssignment.BROKER_IDS);
            if (brokers.isEmpty()) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes an empty replica list.");
            }
            Set<Integer> seen = new HashSet<>();
            for (int broker : brokers) {
                if (!image.brokers().containsKey(broker)) {
                    return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment "
                            + "includes broker " + broker + ", but no such broker is registered.");
                }
                if (!seen.add(broker)) {
                    return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment "
                            + "includes the broker " + broker + " more than once.");
                }
            }
            if (brokers.size() != topic.replicationFactor()) {
                return Plan.rejected(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment "
                        + "includes a partition with " + brokers.size() + " replica(s), but this is not consistent "
                        + "with previous partitions, which have " + topic.replicationFactor() + " replica(s).");
            }
            added.add(List.copyOf(brokers));
        }
        return new Plan(topic, added, ErrorCode.NONE, null);
    }

    private static CompletableFuture<Struct> result(String name, ErrorCode error, String message) {
        return CompletableFuture.completedFuture(resultStruct(name, error, message));
    }

    private static Struct resultStruct(String name, ErrorCode error, String message) {
        return new Struct(CreatePartitionsTopicResult.SCHEMA)
                .set(CreatePartitionsTopicResult.NAME, name)
                .set(CreatePartitionsTopicResult.ERROR_CODE, error.code())
                .set(CreatePartitionsTopicResult.ERROR_MESSAGE, message);
    }
}
