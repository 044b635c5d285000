package dev.cairn.broker.api;

import dev.cairn.broker.cluster.BrokerInfo;
import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import dev.cairn.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetFetch (key 9), versions 1-7 (one group per request): each partition's committed offset, read from the
 * partition's leader replica on this broker. A partition without a committed offset, or of a topic that does
 * not exist, answers offset -1 with metadata "" and no error, as Kafka does (the consumer then resets by
 * {@code auto.offset.reset}). No topics (null, v2+) means every partition the group has committed.
 *
 * <p>Failures are group-level coordinator errors, the only ones every consumer retries, rather than an offset that
 * might be stale: a partition whose read through its leader fails or is slow (a leader being elected, a loaded
 * broker) makes the whole answer COORDINATOR_LOAD_IN_PROGRESS, which clients retry against this same coordinator.
 * It used to be COORDINATOR_NOT_AVAILABLE, which sends clients to find the coordinator again though it is fine, and
 * which franz-go handed to the application under load. Version 1 has no group-level error field, so, as in Kafka,
 * the error goes into every requested partition.
 */
public final class OffsetFetchHandler implements RequestHandler {
    static final long NO_OFFSET = -1;
    static final int NO_LEADER_EPOCH = -1;
    /** What Kafka answers for "no metadata"; kafka-clients turns null into it as well. */
    static final String NO_METADATA = "";
    /** How long one partition's offset read may take (Kafka's offsets.commit.timeout.ms, for symmetry). */
    private static final long OFFSET_FETCH_TIMEOUT_MS = 5_000;
    /** The first version with a group-level error code. */
    private static final short GROUP_ERROR_MIN_VERSION = 2;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;

    public OffsetFetchHandler(MetadataService metadata, ReplicatedPartitions partitions) {
        this.metadata = metadata;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        String groupId = body.get(OffsetFetchRequest.GROUP_ID);
        List<Struct> requested = body.get(OffsetFetchRequest.TOPICS);
        boolean requireStable = body.get(OffsetFetchRequest.REQUIRE_STABLE);
        MetadataImage image = metadata.image();
        ConnectionSession session = context.session();
        ErrorCode groupError = !session.allowedOnGroup(AclOperation.DESCRIBE, groupId == null ? "" : groupId)
                ? ErrorCode.GROUP_AUTHORIZATION_FAILED : coordinatorError(groupId, image);
        if (groupError != null) {
            return CompletableFuture.completedFuture(groupErrorResponse(request.apiVersion(), requested, groupError));
        }
        // Each partition's offset is read from its leader, local or not; unknown partitions answer "none".
        Map<String, List<CompletableFuture<Fetched>>> pending = new LinkedHashMap<>();
        if (requested == null) {
            for (TopicInfo topic : image.topics().values()) {
                if (!session.allowedOnTopic(AclOperation.DESCRIBE, topic.name())) {
                    continue;
                }
                for (int p = 0; p < topic.partitionCount(); p++) {
                    pending.computeIfAbsent(topic.name(), k -> new ArrayList<>())
                            .add(read(groupId, new TopicPartition(topic.name(), p), requireStable));
                }
            }
        } else {
            for (Struct topic : requested) {
                String name = topic.get(OffsetFetchRequestTopic.NAME);
                TopicInfo info = image.topics().get(name);
                boolean describable = session.allowedOnTopic(AclOperation.DESCRIBE, name);
                List<CompletableFuture<Fetched>> answers = pending.computeIfAbsent(name, k -> new ArrayList<>());
                for (int index : topic.get(OffsetFetchRequestTopic.PARTITION_INDEXES)) {
                    answers.add(!describable ? CompletableFuture.completedFuture(Fetched.unauthorized(index))
                            : info == null || index < 0 || index >= info.partitionCount()
                            ? CompletableFuture.completedFuture(Fetched.none(index))
                            : read(groupId, new TopicPartition(name, index), requireStable));
                }
            }
        }
        List<CompletableFuture<Fetched>> all = new ArrayList<>();
        pending.values().forEach(all::addAll);
        return ProduceHandler.allOf(all).thenApply(ignored -> assemble(request.apiVersion(), requested, pending));
    }

    /** One partition's answer, or the group-level error its read ran into. */
    private record Fetched(int partition, long offset, int leaderEpoch, String metadata, ErrorCode error,
            ErrorCode partitionError) {
        Fetched(int partition, long offset, int leaderEpoch, String metadata, ErrorCode error) {
            this(partition, offset, leaderEpoch, metadata, error, ErrorCode.NONE);
        }

        /** Nothing committed for this partition. */
        static Fetched none(int partition) {
            return new Fetched(partition, NO_OFFSET, NO_LEADER_EPOCH, NO_METADATA, null);
        }

        /** A topic the principal may not describe: TOPIC_AUTHORIZATION_FAILED for the partition, as Kafka says. */
        static Fetched unauthorized(int partition) {
            return new Fetched(partition, NO_OFFSET, NO_LEADER_EPOCH, NO_METADATA, null,
                    ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        }

    }

    private CompletableFuture<Fetched> read(String groupId, TopicPartition tp, boolean requireStable) {
        return partitions.committedOffset(tp, groupId, requireStable, OFFSET_FETCH_TIMEOUT_MS).thenApply(result -> {
            if (result instanceof Result.OffsetFetched fetched) {
                return new Fetched(tp.partition(), fetched.offset(), fetched.leaderEpoch(),
                        fetched.metadata() == null ? NO_METADATA : fetched.metadata(), null);
            }
            if (result instanceof Result.Rejected rejected && rejected.error() == ErrorCode.UNSTABLE_OFFSET_COMMIT) {
                // A transaction holds a new offset for it and the consumer asked for a stable one (KIP-447): it
                // retries this partition. Without require_stable the leader answered the last committed offset.
                return new Fetched(tp.partition(), NO_OFFSET, NO_LEADER_EPOCH, NO_METADATA, null,
                        ErrorCode.UNSTABLE_OFFSET_COMMIT);
            }
            return new Fetched(tp.partition(), NO_OFFSET, NO_LEADER_EPOCH, NO_METADATA, readError(result));
        });
    }

    /**
     * The group-level error for a failed read. Only a storage failure on this coordinator's replica is its own fault
     * (NOT_COORDINATOR, as a commit answers it); anything else is transient on the way to the partition's leader.
     */
    private static ErrorCode readError(Result result) {
        if (result instanceof Result.Rejected rejected && rejected.error() == ErrorCode.KAFKA_STORAGE_ERROR) {
            return ErrorCode.NOT_COORDINATOR;
        }
        return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    }

    private static Struct assemble(short version, List<Struct> requested,
            Map<String, List<CompletableFuture<Fetched>>> pending) {
        List<Struct> topicResponses = new ArrayList<>();
        for (Map.Entry<String, List<CompletableFuture<Fetched>>> topic : pending.entrySet()) {
            List<Struct> answers = new ArrayList<>();
            for (CompletableFuture<Fetched> future : topic.getValue()) {
                Fetched fetched = future.join();
                if (fetched.error() != null) {
                    return groupErrorResponse(version, requested, fetched.error());
                }
                // Asked for everything (null topics): only partitions with a committed offset are listed, and those
                // whose offset a transaction holds when a stable one was required (UNSTABLE_OFFSET_COMMIT, retried).
                if (requested == null && fetched.offset() == NO_OFFSET && fetched.partitionError() == ErrorCode.NONE) {
                    continue;
                }
                answers.add(answer(fetched.partition(), fetched.offset(), fetched.leaderEpoch(), fetched.metadata(),
                        fetched.partitionError()));
            }
            if (requested != null || !answers.isEmpty()) {
                topicResponses.add(new Struct(OffsetFetchResponseTopic.SCHEMA)
                        .set(OffsetFetchResponseTopic.NAME, topic.getKey())
                        .set(OffsetFetchResponseTopic.PARTITIONS, answers));
            }
        }
        return response(topicResponses, ErrorCode.NONE);
    }

    /** The group-level error when this broker cannot answer for the group at all, else null. */
    private ErrorCode coordinatorError(String groupId, MetadataImage image) {
        if (groupId == null || groupId.isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        BrokerInfo coordinator = FindCoordinatorHandler.coordinatorFor(groupId, image.liveBrokers());
        if (coordinator == null || coordinator.nodeId() != metadata.localNodeId()) {
            return ErrorCode.NOT_COORDINATOR;
        }
        return null;
    }

    private static Struct groupErrorResponse(short version, List<Struct> requested, ErrorCode error) {
        if (version >= GROUP_ERROR_MIN_VERSION || requested == null) {
            return response(List.of(), error);
        }
        List<Struct> topicResponses = new ArrayList<>();
        for (Struct topic : requested) {
            List<Struct> answers = new ArrayList<>();
            for (int index : topic.get(OffsetFetchRequestTopic.PARTITION_INDEXES)) {
                answers.add(answer(index, NO_OFFSET, NO_LEADER_EPOCH, NO_METADATA, error));
            }
            topicResponses.add(new Struct(OffsetFetchResponseTopic.SCHEMA)
                    .set(OffsetFetchResponseTopic.NAME, topic.get(OffsetFetchRequestTopic.NAME))
                    .set(OffsetFetchResponseTopic.PARTITIONS, answers));
        }
        return response(topicResponses, error);
    }

    private static Struct response(List<Struct> topics, ErrorCode groupError) {
        return new Struct(OffsetFetchResponse.SCHEMA)
                .set(OffsetFetchResponse.THROTTLE_TIME_MS, 0)
                .set(OffsetFetchResponse.TOPICS, topics)
                .set(OffsetFetchResponse.ERROR_CODE, groupError.code());
    }

    private static Struct answer(int index, long offset, int leaderEpoch, String committedMetadata, ErrorCode error) {
        return new Struct(OffsetFetchResponsePartition.SCHEMA)
                .set(OffsetFetchResponsePartition.PARTITION_INDEX, index)
                .set(OffsetFetchResponsePartition.COMMITTED_OFFSET, offset)
                .set(OffsetFetchResponsePartition.COMMITTED_LEADER_EPOCH, leaderEpoch)
                .set(OffsetFetchResponsePartition.METADATA, committedMetadata)
                .set(OffsetFetchResponsePartition.ERROR_CODE, error.code());
    }
}
