package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicNames;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.message.MetadataResponse.MetadataResponseBroker;
import dev.cairn.protocol.message.MetadataResponse.MetadataResponsePartition;
import dev.cairn.protocol.message.MetadataResponse.MetadataResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Metadata (key 3), versions 1-13: brokers, the controller (the metadata group's leader), and per partition its
 * Raft leader, leader epoch (the Raft term), replicas, in-sync replicas and offline replicas (those on brokers
 * that are not live). Unknown topics are created when auto-creation is on and the client allows it; the answer
 * for them is LEADER_NOT_AVAILABLE until their groups have a leader, which clients retry (as with Kafka).
 *
 * <p>From v10 every topic carries its id and a client may ask for topics by id; an id nobody knows is answered
 * UNKNOWN_TOPIC_ID and never auto-creates. A client that asks for authorized operations (v8+) is told all of
 * them, as Kafka without an authorizer tells it.
 */
public final class MetadataHandler implements RequestHandler {
    /** Kafka's "no topic id": the zero UUID. */
    static final UUID NO_TOPIC_ID = new UUID(0L, 0L);
    /** Kafka's "leader epoch unknown". */
    static final int NO_LEADER_EPOCH = -1;
    /** Metadata v10-11 carry topic ids in answers only; from v12 a client may ask for a topic by id. */
    static final short FIRST_VERSION_WITH_TOPIC_IDS = 12;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final TopicCreator creator;
    private final String clusterId;
    private final boolean autoCreateTopics;
    private final int defaultPartitions;
    private final int defaultReplicationFactor;

    public MetadataHandler(MetadataService metadata, ReplicatedPartitions partitions, TopicCreator creator,
            String clusterId, boolean autoCreateTopics, int defaultPartitions, int defaultReplicationFactor) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.creator = creator;
        this.clusterId = clusterId;
        this.autoCreateTopics = autoCreateTopics;
        this.defaultPartitions = defaultPartitions;
        this.defaultReplicationFactor = defaultReplicationFactor;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        MetadataImage image = metadata.image();
        List<Struct> requested = body.get(MetadataRequest.TOPICS);
        boolean allowAutoCreate = body.get(MetadataRequest.ALLOW_AUTO_TOPIC_CREATION);
        boolean askedTopicOperations = body.get(MetadataRequest.INCLUDE_TOPIC_AUTHORIZED_OPERATIONS);
        ConnectionSession session = context.session();
        Set<String> names = new LinkedHashSet<>();
        Set<UUID> unknownIds = new LinkedHashSet<>();
        if (requested == null) {
            // Listing every topic shows only those the principal may describe, as Kafka does.
            for (String name : image.topics().keySet()) {
                if (session.allowedOnTopic(AclOperation.DESCRIBE, name)) {
                    names.add(name);
                }
            }
        } else if (request.apiVersion() < FIRST_VERSION_WITH_TOPIC_IDS && namesATopicById(requested)) {
            // Kafka refuses ids below v12, and a v10-11 answer cannot carry a null name.
            List<Struct> refused = new ArrayList<>();
            for (Struct topic : requested) {
                String name = topic.get(MetadataRequest.MetadataRequestTopic.NAME);
                refused.add(topicError(name == null ? "" : name, NO_TOPIC_ID, ErrorCode.INVALID_REQUEST));
            }
            return CompletableFuture.completedFuture(answer(body, session, image, refused));
        } else {
            for (Struct topic : requested) {
                UUID topicId = topic.get(MetadataRequest.MetadataRequestTopic.TOPIC_ID);
                if (topicId != null && !NO_TOPIC_ID.equals(topicId)) {
                    image.topicById(topicId).ifPresentOrElse(known -> names.add(known.name()),
                            () -> unknownIds.add(topicId));
                } else {
                    names.add(topic.get(MetadataRequest.MetadataRequestTopic.NAME));
                }
            }
        }
        List<Struct> topics = new ArrayList<>();
        // Once per request: with a broker down, liveBrokers() builds a new map on each call.
        Set<Integer> liveBrokers = image.liveBrokers().keySet();
        for (String name : names) {
            TopicInfo topic = name == null ? null : image.topics().get(name);
            if (name != null && !session.allowedOnTopic(AclOperation.DESCRIBE, name)) {
                // Kafka answers an undescribable topic the same whether it exists or not.
                topics.add(topicError(name, NO_TOPIC_ID, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
            } else if (topic != null) {
                topics.add(describe(image, liveBrokers, topic).set(MetadataResponseTopic.TOPIC_AUTHORIZED_OPERATIONS,
                        AuthorizedOperations.topic(askedTopicOperations, session, name)));
            } else {
                boolean mayCreate = session.allowedOnCluster(AclOperation.CREATE)
                        || session.allowedOnTopic(AclOperation.CREATE, name == null ? "" : name);
                ErrorCode error = name == null ? ErrorCode.UNKNOWN_TOPIC_ID
                        : allowAutoCreate && autoCreateTopics && !mayCreate ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
                        : onUnknownTopic(name, allowAutoCreate);
                topics.add(topicError(name, NO_TOPIC_ID, error));
            }
        }
        for (UUID topicId : unknownIds) {
            topics.add(topicError(null, topicId, ErrorCode.UNKNOWN_TOPIC_ID));
        }
        return CompletableFuture.completedFuture(answer(body, session, image, topics));
    }

    private static boolean namesATopicById(List<Struct> requested) {
        for (Struct topic : requested) {
            UUID topicId = topic.get(MetadataRequest.MetadataRequestTopic.TOPIC_ID);
            if (topic.get(MetadataRequest.MetadataRequestTopic.NAME) == null
                    || (topicId != null && !NO_TOPIC_ID.equals(topicId))) {
                return true;
            }
        }
        return false;
    }

    private Struct answer(Struct body, ConnectionSession session, MetadataImage image, List<Struct> topics) {
        return new Struct(MetadataResponse.SCHEMA)
                .set(MetadataResponse.THROTTLE_TIME_MS, 0)
                .set(MetadataResponse.BROKERS, brokers(image, session.listenerName()))
                .set(MetadataResponse.CLUSTER_ID, clusterId)
                .set(MetadataResponse.CONTROLLER_ID, controllerIdOrSelf(metadata))
                .set(MetadataResponse.TOPICS, topics)
                .set(MetadataResponse.CLUSTER_AUTHORIZED_OPERATIONS, AuthorizedOperations.cluster(
                        body.get(MetadataRequest.INCLUDE_CLUSTER_AUTHORIZED_OPERATIONS), session))
                .set(MetadataResponse.ERROR_CODE, ErrorCode.NONE.code());
    }

    private ErrorCode onUnknownTopic(String name, boolean allowAutoCreate) {
        if (TopicNames.invalidReason(name).isPresent()) {
            return ErrorCode.INVALID_TOPIC_EXCEPTION;
        }
        if (!autoCreateTopics || !allowAutoCreate) {
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (!metadata.image().brokers().containsKey(metadata.localNodeId())) {
            // Starting up: this broker has not registered yet, so the brokers a topic could be placed on are not
            // all known. A retriable answer: librdkafka treats INVALID_REPLICATION_FACTOR as final, and a produce
            // the moment the port opened failed where the same one a second later worked.
            return ErrorCode.LEADER_NOT_AVAILABLE;
        }
        if (creator.checkAssignable(defaultReplicationFactor) != null) {
            return ErrorCode.INVALID_REPLICATION_FACTOR;
        }
        // Fire and forget: a concurrent creation of the same name is rejected harmlessly by the metadata group.
        creator.create(name, defaultPartitions, defaultReplicationFactor, Map.of());
        return ErrorCode.LEADER_NOT_AVAILABLE;
    }

    /**
     * The controller clients are told about: the metadata leader, or this broker while no leader is known (a
     * live broker's id, so that Admin keeps sending to a node that answers, NOT_CONTROLLER if need be).
     */
    static int controllerIdOrSelf(MetadataService metadata) {
        int controller = metadata.controllerId();
        return controller >= 0 ? controller : metadata.localNodeId();
    }

    /**
     * The live brokers, as Kafka lists only unfenced ones: a broker the metadata leader has not heard from within
     * broker.session.timeout.ms is left out (it used to be listed for minutes after a kill -9). Partitions still
     * name it among their replicas. Each broker is listed with its endpoint of the listener the request came in on,
     * as in Kafka; a broker without a listener of that name is left out.
     */
    private static List<Struct> brokers(MetadataImage image, String listenerName) {
        List<Struct> brokers = new ArrayList<>();
        for (BrokerInfo broker : image.liveBrokers().values()) {
            broker.endpoint(listenerName).ifPresent(endpoint -> brokers.add(new Struct(MetadataResponseBroker.SCHEMA)
                    .set(MetadataResponseBroker.NODE_ID, broker.nodeId())
                    .set(MetadataResponseBroker.HOST, endpoint.host())
                    .set(MetadataResponseBroker.PORT, endpoint.port())
                    .set(MetadataResponseBroker.RACK, null)));
        }
        return brokers;
    }

    private Struct describe(MetadataImage image, Set<Integer> liveBrokers, TopicInfo topic) {
        List<Struct> partitionStructs = new ArrayList<>();
        for (int p = 0; p < topic.partitionCount(); p++) {
            List<Integer> replicas = topic.replicas().get(p);
            TopicPartition tp = new TopicPartition(topic.name(), p);
            // A replica's own Raft view is the freshest; elsewhere the leader's published state answers.
            Leadership local = partitions.leadership(tp);
            Optional<PartitionState> published = image.partitionState(tp);
            int leader = local.leaderId() >= 0 ? local.leaderId() : published.map(PartitionState::leaderId).orElse(-1);
            int leaderEpoch = local.leaderId() >= 0 ? local.leaderEpoch()
                    : published.map(PartitionState::leaderEpoch).orElse(NO_LEADER_EPOCH);
            List<Integer> isr = published.filter(state -> state.leaderId() == leader).map(PartitionState::isr)
                    .orElse(leader >= 0 ? List.of(leader) : List.of());
            partitionStructs.add(new Struct(MetadataResponsePartition.SCHEMA)
                    .set(MetadataResponsePartition.ERROR_CODE,
                            (leader >= 0 ? ErrorCode.NONE : ErrorCode.LEADER_NOT_AVAILABLE).code())
                    .set(MetadataResponsePartition.PARTITION_INDEX, p)
                    .set(MetadataResponsePartition.LEADER_ID, leader)
                    .set(MetadataResponsePartition.LEADER_EPOCH, leader >= 0 ? leaderEpoch : NO_LEADER_EPOCH)
                    .set(MetadataResponsePartition.REPLICA_NODES, replicas)
                    .set(MetadataResponsePartition.ISR_NODES, isr)
                    .set(MetadataResponsePartition.OFFLINE_REPLICAS, offline(liveBrokers, replicas)));
        }
        return new Struct(MetadataResponseTopic.SCHEMA)
                .set(MetadataResponseTopic.ERROR_CODE, ErrorCode.NONE.code())
                .set(MetadataResponseTopic.NAME, topic.name())
                .set(MetadataResponseTopic.TOPIC_ID, topic.topicId())
                .set(MetadataResponseTopic.IS_INTERNAL, InternalTopics.isInternal(topic.name()))
                .set(MetadataResponseTopic.PARTITIONS, partitionStructs);
    }

    /** The replicas on brokers that are not live, as Kafka lists replicas on fenced or offline brokers. */
    private static List<Integer> offline(Set<Integer> liveBrokers, List<Integer> replicas) {
        List<Integer> offline = new ArrayList<>();
        for (int replica : replicas) {
            if (!liveBrokers.contains(replica)) {
                offline.add(replica);
            }
        }
        return offline;
    }

    private static Struct topicError(String name, UUID topicId, ErrorCode error) {
        return new Struct(MetadataResponseTopic.SCHEMA)
                .set(MetadataResponseTopic.ERROR_CODE, error.code())
                .set(MetadataResponseTopic.NAME, name)
                .set(MetadataResponseTopic.TOPIC_ID, topicId)
                .set(MetadataResponseTopic.IS_INTERNAL, InternalTopics.isInternal(name))
                .set(MetadataResponseTopic.PARTITIONS, List.of());
    }
}
