package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.ElectLeadersRequest;
import dev.cairn.protocol.message.ElectLeadersRequest.TopicPartitions;
import dev.cairn.protocol.message.ElectLeadersResponse;
import dev.cairn.protocol.message.ElectLeadersResponse.PartitionResult;
import dev.cairn.protocol.message.ElectLeadersResponse.ReplicaElectionResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * ElectLeaders (key 43), versions 0-2 ({@code kafka-leader-election}, {@code Admin.electLeaders}), answered by any
 * broker: Admin sends it to the broker Metadata names controller and does not retry a NOT_CONTROLLER answer (Kafka's
 * brokers forward it to the active controller), and a Raft leadership transfer can be asked from any broker.
 *
 * <p>Preferred election hands each partition's leadership to its preferred replica (the first in its replica list)
 * by a Raft leadership transfer: ELECTION_NOT_NEEDED when it leads already, PREFERRED_LEADER_NOT_AVAILABLE when it
 * is dead, out of the in-sync replicas, or the transfer did not complete in time, NONE once it leads. Unclean
 * election has no meaning under Raft (a leader is always elected from a majority holding every committed entry):
 * a partition with a leader answers ELECTION_NOT_NEEDED, one without ELIGIBLE_LEADERS_NOT_AVAILABLE. A null
 * partition list means every partition whose preferred replica does not lead, as in Kafka.
 */
public final class ElectLeadersHandler implements RequestHandler {
    static final byte PREFERRED = 0;
    static final byte UNCLEAN = 1;
    /** The longest one transfer may take, whatever the request's timeout. */
    static final long TRANSFER_TIMEOUT_MS_MAX = 30_000;

    /** Hands a partition's leadership to a replica; completes with whether it happened in time. */
    public interface LeaderTransfer {
        CompletableFuture<Boolean> transfer(TopicPartition partition, int toNode, long timeoutMs);
    }

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final LeaderTransfer transfer;

    public ElectLeadersHandler(MetadataService metadata, ReplicatedPartitions partitions, LeaderTransfer transfer) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.transfer = transfer;
    }

    /** The leader as Metadata answers it: this broker's own Raft view when it holds a replica, else the published. */
    private int leaderOf(MetadataImage image, TopicPartition tp) {
        int local = partitions.leadership(tp).leaderId();
        return local >= 0 ? local : image.partitionState(tp).map(PartitionState::leaderId).orElse(-1);
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        byte type = request.apiVersion() >= 1 ? body.get(ElectLeadersRequest.ELECTION_TYPE) : PREFERRED;
        long timeoutMs = Math.max(1, Math.min(TRANSFER_TIMEOUT_MS_MAX, body.get(ElectLeadersRequest.TIMEOUT_MS)));
        List<Struct> asked = body.get(ElectLeadersRequest.TOPIC_PARTITIONS);
        MetadataImage image = metadata.image();
        if (!context.session().allowedOnCluster(AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(response(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, asked,
                    Map.of()));
        }
        if (type != PREFERRED && type != UNCLEAN) {
            return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, asked, Map.of()));
        }
        Map<String, Map<Integer, CompletableFuture<Struct>>> results = new LinkedHashMap<>();
        if (asked == null) {
            for (TopicInfo topic : image.topics().values()) {
                for (int p = 0; p < topic.partitionCount(); p++) {
                    TopicPartition tp = new TopicPartition(topic.name(), p);
                    int preferred = topic.replicas().get(p).get(0);
                    boolean leads = leaderOf(image, tp) == preferred;
                    if (type == PREFERRED && !leads) {
                        results.computeIfAbsent(topic.name(), k -> new LinkedHashMap<>())
                                .put(p, elect(image, tp, type, timeoutMs));
                    }
                }
            }
        } else {
            for (Struct topic : asked) {
                String name = topic.get(TopicPartitions.TOPIC);
                for (int p : topic.get(TopicPartitions.PARTITIONS)) {
                    results.computeIfAbsent(name, k -> new LinkedHashMap<>())
                            .put(p, elect(image, new TopicPartition(name, p), type, timeoutMs));
                }
            }
        }
        List<CompletableFuture<Struct>> all = new ArrayList<>();
        results.values().forEach(partitions -> all.addAll(partitions.values()));
        return ProduceHandler.allOf(all).thenApply(ignored -> response(ErrorCode.NONE, null, results));
    }

    private CompletableFuture<Struct> elect(MetadataImage image, TopicPartition tp, byte type, long timeoutMs) {
        Optional<TopicInfo> topic = image.topic(tp.topic());
        if (topic.isEmpty() || tp.partition() < 0 || tp.partition() >= topic.get().partitionCount()) {
            return done(tp, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition");
        }
        Optional<PartitionState> state = image.partitionState(tp);
        int leader = leaderOf(image, tp);
        if (type == UNCLEAN) {
            return leader >= 0 ? done(tp, ErrorCode.ELECTION_NOT_NEEDED, "the partition has a leader")
                    : done(tp, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, "no majority of its replicas is up; "
                    + "Raft elects no leader without one (there is no unclean election)");
        }
        int preferred = topic.get().replicas().get(tp.partition()).get(0);
        if (leader == preferred) {
            return done(tp, ErrorCode.ELECTION_NOT_NEEDED, "the preferred replica " + preferred + " leads");
        }
        boolean inSync = state.map(s -> s.isr().contains(preferred)).orElse(false);
        if (image.deadBrokers().contains(preferred) || !inSync) {
            return done(tp, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, "the preferred replica " + preferred
                    + " is not alive and in sync");
        }
        return transfer.transfer(tp, preferred, timeoutMs).thenApply(moved -> moved
                ? result(tp.partition(), ErrorCode.NONE, null)
                : result(tp.partition(), ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, "the leadership transfer to "
                        + preferred + " did not complete within " + timeoutMs + " ms (or too many transfers were "
                        + "queued: " + Limits.LEADER_TRANSFERS_QUEUED_MAX + " at most)"));
    }

    private static CompletableFuture<Struct> done(TopicPartition tp, ErrorCode error, String message) {
        return CompletableFuture.completedFuture(result(tp.partition(), error, message));
    }

    private static Struct result(int partition, ErrorCode error, String message) {
        return new Struct(PartitionResult.SCHEMA)
                .set(PartitionResult.PARTITION_ID, partition)
                .set(PartitionResult.ERROR_CODE, error.code())
                .set(PartitionResult.ERROR_MESSAGE, message);
    }

    /** The response; with a top-level error, every asked partition carries it too (version 0 has no top level). */
    private static Struct response(ErrorCode error, List<Struct> asked,
            Map<String, Map<Integer, CompletableFuture<Struct>>> results) {
        List<Struct> topics = new ArrayList<>();
        if (error != ErrorCode.NONE && asked != null) {
            for (Struct topic : asked) {
                List<Struct> partitions = new ArrayList<>();
                for (int p : topic.get(TopicPartitions.PARTITIONS)) {
                    partitions.add(result(p, error, null));
                }
                topics.add(new Struct(ReplicaElectionResult.SCHEMA)
                        .set(ReplicaElectionResult.TOPIC, topic.get(TopicPartitions.TOPIC))
                        .set(ReplicaElectionResult.PARTITION_RESULT, partitions));
            }
        }
        results.forEach((name, partitions) -> topics.add(new Struct(ReplicaElectionResult.SCHEMA)
                .set(ReplicaElectionResult.TOPIC, name)
                .set(ReplicaElectionResult.PARTITION_RESULT, partitions.values().stream()
                        .map(CompletableFuture::join).toList())));
        return new Struct(ElectLeadersResponse.SCHEMA)
                .set(ElectLeadersResponse.THROTTLE_TIME_MS, 0)
                .set(ElectLeadersResponse.ERROR_CODE, error.code())
                .set(ElectLeadersResponse.REPLICA_ELECTION_RESULTS, topics);
    }
}
