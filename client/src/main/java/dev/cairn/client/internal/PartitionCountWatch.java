package dev.cairn.client.internal;

import dev.cairn.client.CairnException;
import dev.cairn.protocol.ErrorCode;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The group leader's watch for partitions added to (or topics created among) the topics it assigned, as
 * kafka-clients' ConsumerCoordinator compares its assignment snapshot with fresh metadata: the leader re-reads the
 * metadata of every member's topics once per metadata.max.age.ms and asks for a rebalance when a partition count
 * differs from the one it assigned with. Only the leader watches (kafka-clients does the same), because only it
 * knows every member's topics; the others learn of the change through the rebalance. Consumer thread only; the
 * metadata request is synchronous, bounded by request.timeout.ms.
 */
final class PartitionCountWatch {
    private final long intervalMs;
    private final long retryBackoffMs;
    private final Function<Collection<String>, ClusterMetadata> refresh;
    /** The topics and partition counts of the last assignment this member made; null unless it is the leader. */
    private Map<String, Integer> assignedCounts;
    private List<String> topics = List.of();
    private long nextCheckMs;

    /**
     * @param intervalMs metadata.max.age.ms
     * @param retryBackoffMs how soon to check again after a failed metadata request
     * @param refresh fetches fresh metadata for the given topics
     */
    PartitionCountWatch(long intervalMs, long retryBackoffMs, Function<Collection<String>, ClusterMetadata> refresh) {
        this.intervalMs = intervalMs;
        this.retryBackoffMs = retryBackoffMs;
        this.refresh = refresh;
    }

    /** The topics' partition counts as metadata describes them; unknown or failed topics are absent. */
    static Map<String, Integer> partitionCounts(ClusterMetadata metadata, Collection<String> topics) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String topic : topics) {
            ClusterMetadata.TopicMetadata described = metadata.topics().get(topic);
            if (described != null && described.error() == ErrorCode.NONE && !described.partitions().isEmpty()) {
                counts.put(topic, described.partitions().size());
            }
        }
        return counts;
    }

    /** This member, as leader, assigned {@code allTopics} with these partition counts. */
    void onAssigned(Collection<String> allTopics, Map<String, Integer> counts, long nowMs) {
        topics = List.copyOf(allTopics);
        assignedCounts = Map.copyOf(counts);
        nextCheckMs = nowMs + intervalMs;
    }

    /** A new rebalance starts: until it assigns again, this member has nothing to watch. */
    void clear() {
        assignedCounts = null;
    }

    /**
     * True when the metadata.max.age.ms interval has passed and fresh metadata shows partition counts other than
     * the assigned ones. A retriable metadata failure is retried after retry.backoff.ms.
     */
    boolean maybeChanged(long nowMs) {
        if (assignedCounts == null || nowMs < nextCheckMs) {
            return false;
        }
        ClusterMetadata metadata;
        try {
            metadata = refresh.apply(topics);
        } catch (CairnException failed) {
            if (!failed.isRetriable()) {
                throw failed;
            }
            nextCheckMs = nowMs + retryBackoffMs;
            return false;
        }
        nextCheckMs = nowMs + intervalMs;
        return !partitionCounts(metadata, topics).equals(assignedCounts);
    }
}
