package dev.cairn.broker.api;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Waits for new partitions to get leaders before CreateTopics or CreatePartitions answers, so that a produce right
 * after the answer finds a leader. Leadership is visible only where a replica lives, so only the partitions with
 * a replica on this broker are waited for; one whose leader is this broker must also be ready to take writes.
 */
final class PartitionLeaderWait {
    /** Longest wait for new partitions' leaders whatever the request's timeout says. */
    static final long LEADER_WAIT_MS_MAX = 60_000;
    /** How often a pending answer looks at the partitions' leaders again. */
    static final long LEADER_POLL_INTERVAL_MS = 10;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final ScheduledExecutorService timer;
    private final LongSupplier clockMs;

    PartitionLeaderWait(MetadataService metadata, ReplicatedPartitions partitions, ScheduledExecutorService timer,
            LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.timer = timer;
        this.clockMs = clockMs;
    }

    /**
     * Completes with an empty list once partitions {@code firstPartition..} of {@code topic} hosted here all have a
     * leader, or at {@code deadlineMs} with those that still have none.
     */
    CompletableFuture<List<Integer>> await(TopicInfo topic, int firstPartition, long deadlineMs) {
        CompletableFuture<List<Integer>> answer = new CompletableFuture<>();
        poll(topic, firstPartition, deadlineMs, answer);
        return answer;
    }

    private void poll(TopicInfo topic, int firstPartition, long deadlineMs, CompletableFuture<List<Integer>> answer) {
        List<Integer> leaderless = leaderless(topic, firstPartition);
        if (leaderless.isEmpty()) {
            answer.complete(List.of());
            return;
        }
        long remainingMs = deadlineMs - clockMs.getAsLong();
        if (remainingMs <= 0) {
            answer.complete(leaderless);
            return;
        }
        timer.schedule(() -> {
            try {
                poll(topic, firstPartition, deadlineMs, answer);
            } catch (RuntimeException e) {
                // A scheduled task's exception would vanish and leave the request unanswered forever; failing the
                // answer closes the connection and logs the bug instead.
                answer.completeExceptionally(e);
            }
        }, Math.min(LEADER_POLL_INTERVAL_MS, remainingMs), TimeUnit.MILLISECONDS);
    }

    private List<Integer> leaderless(TopicInfo topic, int firstPartition) {
        List<Integer> leaderless = new ArrayList<>();
        int localNodeId = metadata.localNodeId();
        for (int p = firstPartition; p < topic.partitionCount(); p++) {
            if (!topic.replicas().get(p).contains(localNodeId)) {
                continue;
            }
            Leadership leadership = partitions.leadership(new TopicPartition(topic.name(), p));
            boolean ready = leadership.leaderId() >= 0 && (leadership.leaderId() != localNodeId || leadership.local());
            if (!ready) {
                leaderless.add(p);
            }
        }
        return leaderless;
    }
}
