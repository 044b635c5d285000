package dev.cairn.broker.cluster;

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
 * group holds others than the partition's log follows (after IncrementalAlterConfigs or AlterConfigs), and compaction
 * passes of compacted topics. At most one reconfiguration and one compaction pass are in flight per partition; one
 * that fails or times out is submitted again at a later run.
 */
public final class PartitionLeaderJobs {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLeaderJobs.class);

    private final Supplier<Collection<TopicPartition>> hosted;
    private final Function<TopicPartition, Optional<Partition>> ledReplica;
    private final Supplier<MetadataImage> images;
    private final Submitter submit;
    private final Set<TopicPartition> reconfigurationsInFlight = ConcurrentHashMap.newKeySet();
    private final Set<TopicPartition> compactionsInFlight = ConcurrentHashMap.newKeySet();

    /**
     * @param hosted the partitions this broker holds a replica of
     * @param ledReplica this broker's replica of a partition when it leads it, empty otherwise
     * @param submit submits a command through the partition's group
     */
    public PartitionLeaderJobs(Supplier<Collection<TopicPartition>> hosted,
            Function<TopicPartition, Optional<Partition>> ledReplica, Supplier<MetadataImage> images,
            Submitter submit) {
        this.hosted = hosted;
        this.ledReplica = ledReplica;
        this.images = images;
        this.submit = submit;
    }

    /** Submits a command through a partition's Raft group, answered within {@code timeoutMs}. */
    public interface Submitter {
        CompletableFuture<Result> submit(TopicPartition tp, Command command, long timeoutMs);
    }

    /** Submits retention as of {@code nowMs} to every partition this broker leads. */
    public void enforceRetention(long nowMs, long timeoutMs) {
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

    /**
     * Submits a compaction pass to every led partition of a compacted topic where one is due (see
     * {@link Partition#compactionDue}); at most one pass is in flight per partition.
     */
    public void compact(long nowMs, long timeoutMs) {
        for (TopicPartition tp : hosted.get()) {
            Optional<Partition> replica = ledReplica.apply(tp);
            if (replica.isEmpty()) {
                continue;
            }
            Optional<Command.Compact> due = replica.get().compactionDue(nowMs);
            if (due.isEmpty() || !compactionsInFlight.add(tp)) {
                continue;
            }
            submit.submit(tp, due.get(), timeoutMs).whenComplete((result, error) -> {
                compactionsInFlight.remove(tp);
                if (result instanceof Result.Compacted compacted && compacted.segmentsCleaned() > 0) {
                    LOG.info("{}: compacted {} segments up to offset {}: {} -> {} bytes, {} records removed{}", tp,
                            compacted.segmentsCleaned(), compacted.cleanedUpTo(), compacted.bytesBefore(),
                            compacted.bytesAfter(), compacted.recordsRemoved(),
                            compacted.keyMapFull() ? " (key map full: the rest at the next pass)" : "");
                } else if (result instanceof Result.Compacted compacted && compacted.keyMapFull()) {
                    LOG.warn("{}: not compacted: the keys of one segment do not fit in the key map", tp);
                } else if (error != null) {
                    LOG.warn("{}: compaction pass not applied yet ({}); retrying later", tp, error.toString());
                }
            });
        }
    }

    /**
     * Submits the topic's configs, over the cluster's dynamic broker defaults ({@link BrokerDefaults}), to every led
     * partition whose log follows others.
     */
    public void syncTopicConfigs(long timeoutMs) {
        MetadataImage image = images.get();
        for (TopicPartition tp : hosted.get()) {
            TopicInfo topic = image.topics().get(tp.topic());
            Optional<Partition> replica = ledReplica.apply(tp);
            if (topic == null || replica.isEmpty()) {
                continue;
            }
            Map<String, String> current = replica.get().topicConfigs();
            Map<String, String> wanted = BrokerDefaults.effectiveTopicConfigs(image, topic);
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
