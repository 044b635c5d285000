package dev.cairn.broker.api;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeLogDirsRequest;
import dev.cairn.protocol.message.DescribeLogDirsRequest.DescribableLogDirTopic;
import dev.cairn.protocol.message.DescribeLogDirsResponse;
import dev.cairn.protocol.message.DescribeLogDirsResponse.DescribeLogDirsPartition;
import dev.cairn.protocol.message.DescribeLogDirsResponse.DescribeLogDirsResult;
import dev.cairn.protocol.message.DescribeLogDirsResponse.DescribeLogDirsTopic;
import dev.cairn.protocol.schema.Struct;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * DescribeLogDirs (key 35), versions 1-4 as in Kafka 4 ({@code kafka-log-dirs}, {@code Admin.describeLogDirs}):
 * this broker's one log directory with the size of each partition replica it holds, leader or follower, as
 * Kafka answers it per broker. A null topic list means every local replica; replicas named but not held here are
 * left out, as in Kafka. The offset lag is 0: Kafka reports a lag only for "future" replicas being moved between a
 * broker's directories, which Cairn (one directory per broker) never has. Version 4 adds the directory's total
 * and usable bytes, read from its file store (-1 when the file store cannot say).
 */
public final class DescribeLogDirsHandler implements RequestHandler {
    static final long UNKNOWN_BYTES = -1;

    private final Path logDir;
    private final Supplier<Map<TopicPartition, Partition>> localReplicas;

    /**
     * @param logDir the directory holding the partitions' segment files
     * @param localReplicas every partition replica this broker holds now
     */
    public DescribeLogDirsHandler(Path logDir, Supplier<Map<TopicPartition, Partition>> localReplicas) {
        this.logDir = logDir.toAbsolutePath().normalize();
        this.localReplicas = localReplicas;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        List<Struct> asked = request.body().get(DescribeLogDirsRequest.TOPICS);
        if (!context.session().allowedOnCluster(AclOperation.DESCRIBE)) {
            return CompletableFuture.completedFuture(new Struct(DescribeLogDirsResponse.SCHEMA)
                    .set(DescribeLogDirsResponse.THROTTLE_TIME_MS, 0)
                    .set(DescribeLogDirsResponse.ERROR_CODE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code())
                    .set(DescribeLogDirsResponse.RESULTS, List.of()));
        }
        Set<TopicPartition> wanted = null;
        if (asked != null) {
            wanted = new HashSet<>();
            for (Struct topic : asked) {
                for (int partition : topic.get(DescribableLogDirTopic.PARTITIONS)) {
                    wanted.add(new TopicPartition(topic.get(DescribableLogDirTopic.TOPIC), partition));
                }
            }
        }
        Map<String, List<Struct>> byTopic = new TreeMap<>();
        Map<TopicPartition, Partition> sorted = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
        sorted.putAll(localReplicas.get());
        for (Map.Entry<TopicPartition, Partition> replica : sorted.entrySet()) {
            TopicPartition tp = replica.getKey();
            if (wanted != null && !wanted.contains(tp)) {
                continue;
            }
            byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(new Struct(DescribeLogDirsPartition.SCHEMA)
                    .set(DescribeLogDirsPartition.PARTITION_INDEX, tp.partition())
                    .set(DescribeLogDirsPartition.PARTITION_SIZE, replica.getValue().logSizeBytes())
                    .set(DescribeLogDirsPartition.OFFSET_LAG, 0L)
                    .set(DescribeLogDirsPartition.IS_FUTURE_KEY, false));
        }
        List<Struct> topics = new ArrayList<>();
        byTopic.forEach((name, partitions) -> topics.add(new Struct(DescribeLogDirsTopic.SCHEMA)
                .set(DescribeLogDirsTopic.NAME, name)
                .set(DescribeLogDirsTopic.PARTITIONS, partitions)));
        long total = UNKNOWN_BYTES;
        long usable = UNKNOWN_BYTES;
        try {
            FileStore store = Files.getFileStore(logDir);
            total = store.getTotalSpace();
            usable = store.getUsableSpace();
        } catch (IOException | SecurityException e) {
            // Sizes stay unknown; the replicas' sizes are still right.
        }
        Struct result = new Struct(DescribeLogDirsResult.SCHEMA)
                .set(DescribeLogDirsResult.ERROR_CODE, ErrorCode.NONE.code())
                .set(DescribeLogDirsResult.LOG_DIR, logDir.toString())
                .set(DescribeLogDirsResult.TOPICS, topics)
                .set(DescribeLogDirsResult.TOTAL_BYTES, total)
                .set(DescribeLogDirsResult.USABLE_BYTES, usable);
        return CompletableFuture.completedFuture(new Struct(DescribeLogDirsResponse.SCHEMA)
                .set(DescribeLogDirsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeLogDirsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(DescribeLogDirsResponse.RESULTS, List.of(result)));
    }
}
