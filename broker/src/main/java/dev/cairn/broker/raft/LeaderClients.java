package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.PartitionGroups;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;

/**
 * Raft clients for partition groups this broker reaches without leading them (offset commits and reads through the
 * partition's leader), one per group, built from the group's replicas in metadata and kept until close.
 */
final class LeaderClients implements Closeable {
    /** Retries of a partition-group client (leader moves, elections), and the pause between them. */
    private static final int CLIENT_RETRIES_MAX = 20;
    private static final long CLIENT_RETRY_SLEEP_MS = 100;

    private final Supplier<MetadataImage> images;
    private final Function<List<Integer>, List<RaftPeer>> peers;
    private final RaftProperties properties;
    private final Map<UUID, RaftClient> clients = new ConcurrentHashMap<>();

    LeaderClients(Supplier<MetadataImage> images, Function<List<Integer>, List<RaftPeer>> peers,
            RaftProperties properties) {
        this.images = images;
        this.peers = peers;
        this.properties = properties;
    }

    /** Replicates {@code command} through the group's leader, wherever it is. */
    CompletableFuture<Result> send(TopicPartition tp, ByteBuffer command, long timeoutMs) {
        Optional<RaftClient> client = client(tp);
        if (client.isEmpty()) {
            return unknown(tp);
        }
        return client.get().async().send(Message.valueOf(UnsafeByteOperations.unsafeWrap(command)))
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS).handle((reply, error) -> result(tp, reply, error));
    }

    /** Asks the group's leader a read-only query. */
    CompletableFuture<Result> query(TopicPartition tp, ByteBuffer query, long timeoutMs) {
        Optional<RaftClient> client = client(tp);
        if (client.isEmpty()) {
            return unknown(tp);
        }
        return client.get().async().sendReadOnly(Message.valueOf(UnsafeByteOperations.unsafeWrap(query)))
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS).handle((reply, error) -> result(tp, reply, error));
    }

    private static CompletableFuture<Result> unknown(TopicPartition tp) {
        return CompletableFuture.completedFuture(new Result.Rejected(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                tp + " is not in metadata"));
    }

    private static Result result(TopicPartition tp, RaftClientReply reply, Throwable error) {
        if (error != null || reply == null || !reply.isSuccess()) {
            Object cause = error != null ? error : reply == null ? "no reply" : reply.getException();
            return new Result.Rejected(ErrorCode.REQUEST_TIMED_OUT, tp + ": through the leader failed: " + cause);
        }
        return CommandCodec.decodeResult(reply.getMessage().getContent().asReadOnlyByteBuffer());
    }

    private Optional<RaftClient> client(TopicPartition tp) {
        Optional<TopicInfo> topic = images.get().topic(tp.topic());
        if (topic.isEmpty() || tp.partition() < 0 || tp.partition() >= topic.get().partitionCount()) {
            return Optional.empty();
        }
        UUID gid = PartitionGroups.groupId(topic.get().topicId(), tp.partition());
        List<Integer> replicas = topic.get().replicas().get(tp.partition());
        return Optional.of(clients.computeIfAbsent(gid, id -> RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(RaftGroupId.valueOf(id), peers.apply(replicas)))
                .setProperties(properties)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(CLIENT_RETRIES_MAX,
                        TimeDuration.valueOf(CLIENT_RETRY_SLEEP_MS, TimeUnit.MILLISECONDS)))
                .build()));
    }

    @Override
    public void close() throws IOException {
        for (RaftClient client : clients.values()) {
            client.close();
        }
    }
}
