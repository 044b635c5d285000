package dev.cairn.broker.raft;

import dev.cairn.broker.cluster.MetadataImage;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commands the leader of each partition submits on the maintenance timer, so that every replica applies them at
 * the same position of its log: retention as of the leader's clock, and the topic's configs whenever the metadata
 * group holds others than the partition's log follows (after IncrementalAlterConfigs or AlterConfigs). At most one
 * reconfiguration is in flight per partition; one that fails or times out is submitted again at the next run.
 */
final class PartitionLeaderJobs {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLeaderJobs.class);

    private final Supplier<Collection<TopicPartition>> hosted;
    private final Function<TopicPartition, Optional<Partition>> ledReplica;
    private final Supplier<MetadataImage> images;
    private final Submitter submit;
    private final Set<TopicPartition> reconfigurationsInFlight = ConcurrentHashMap.newKeySet();

    /**
     * @param hosted the partitions this broker holds a replica of
     * @param ledReplica this broker's replica of a partition when it leads it, empty otherwise
     * @param submit submits a command through the partition's group
     */
    PartitionLeaderJobs(Supplier<Collection<TopicPartition>> hosted,
            Function<TopicPartition, Optional<Partition>> ledReplica, Supplier<MetadataImage> images,
            Submitter submit) {
        this.hosted = hosted;
        this.ledReplica = ledReplica;
        this.images = images;
        this.submit = submit;
    }

    /** Submits a command through a partition's Raft group, answered within {@code timeoutMs}. */
    interface Submitter {
        CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs);
    }

    /** Submits retention as of {@code nowMs} to every partition this broker leads. */
    void enforceRetention(long nowMs, long timeoutMs) {
        for (TopicPartition tp : hosted.get()) {
            if (ledReplica.apply(tp).isEmpty()) {
                continue;
            }
            submit.submit(tp, new Command.EnforceRetention(nowMs), timeoutMs).thenAccept(result -> {
                if (result instanceof Result.Retained retained && retained.segmentsDeleted() > 0) {
                    LOG.info("{}: retention deleted {} segments; the log now starts at offset {}", tp,
                            retained.segmentsDeleted(), retained.logStartOffset());
                }
            });
        }
    }

    /** Submits the topic's configs to every led partition whose log follows others. */
    void syncTopicConfigs(long timeoutMs) {
        MetadataImage image = images.get();
        for (TopicPartition tp : hosted.get()) {
            TopicInfo topic = image.topics().get(tp.topic());
            Optional<Partition> replica = ledReplica.apply(tp);
            if (topic == null || replica.isEmpty()) {
                continue;
            }
            Map<String, String> current = replica.get().topicConfigs();
            Map<String, String> wanted = topic.configs();
            if (current.equals(wanted) || !reconfigurationsInFlight.add(tp)) {
                continue;
            }
            submit.submit(tp, new Command.Reconfigure(wanted), timeoutMs).whenComplete((result, error) -> {
                reconfigurationsInFlight.remove(tp);
                if (result instanceof Result.Reconfigured) {
                    LOG.info("{}: topic configs {} -> {}", tp, current, wanted);
                } else {
                    LOG.warn("{}: topic configs {} not applied yet ({}); retrying", tp, wanted,
                            error != null ? error.toString() : result);
                }
            });
        }
    }
}
