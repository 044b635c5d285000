package dev.cairn.broker.api;

import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CoordinatorTransactions;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TransactionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires transactional ids (Kafka's {@code transactional.id.expiration.ms}), run every
 * {@code transactions.remove.expired.transaction.cleanup.interval.ms} on the broker's timer. For each partition of
 * {@code __transaction_state} this broker leads, the ids idle that long (no transaction open or ending, and not
 * updated since) are proposed in {@link Command.TxnExpireIds} entries stamped with this broker's clock and setting:
 * the clock is read here, on the leader, never where the entry applies. The partition checks each id again as the
 * entry applies, so one used between this look and the entry stays. A run begins only once the previous run's
 * entries are answered.
 */
public final class TransactionalIdExpirer implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalIdExpirer.class);

    private final TransactionCoordinator coordinator;
    private final long expirationMs;
    private final AtomicBoolean running = new AtomicBoolean();

    /** @param expirationMs {@code transactional.id.expiration.ms} */
    public TransactionalIdExpirer(TransactionCoordinator coordinator, long expirationMs) {
        this.coordinator = coordinator;
        this.expirationMs = expirationMs;
    }

    @Override
    public void run() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        List<CompletableFuture<Result>> proposed = new ArrayList<>();
        try {
            TopicInfo topic = coordinator.metadata().image().topics().get(TransactionCoordinator.TOPIC);
            for (int index = 0; topic != null && index < topic.partitionCount(); index++) {
                proposeFor(new TopicPartition(TransactionCoordinator.TOPIC, index), proposed);
            }
        } catch (RuntimeException e) {
            LOG.warn("expiring transactional ids failed; the next run tries again", e);
        }
        CompletableFuture.allOf(proposed.toArray(CompletableFuture[]::new)).whenComplete((done, error) -> {
            running.set(false);
        });
    }

    /** Proposes the idle ids of {@code tp}, when this broker leads it, in entries of a bounded size. */
    private void proposeFor(TopicPartition tp, List<CompletableFuture<Result>> proposed) {
        ReplicatedPartitions partitions = coordinator.partitions();
        Optional<Partition> led = partitions.leaderReplica(tp);
        if (led.isEmpty()) {
            return;
        }
        long nowMs = coordinator.nowMs();
        List<String> idle = led.get().coordinatedTransactions(false).stream()
                .filter(record -> record.expirable(nowMs, expirationMs))
                .map(TransactionRecord::transactionalId).toList();
        for (int from = 0; from < idle.size(); from += CoordinatorTransactions.EXPIRED_IDS_PER_COMMAND_MAX) {
            List<String> ids = idle.subList(from,
                    Math.min(idle.size(), from + CoordinatorTransactions.EXPIRED_IDS_PER_COMMAND_MAX));
            proposed.add(partitions.submit(tp, new Command.TxnExpireIds(ids, expirationMs, nowMs),
                    TransactionCoordinator.SUBMIT_TIMEOUT_MS).whenComplete((result, error) -> {
                        if (error != null || result instanceof Result.Rejected) {
                            LOG.debug("expiring {} transactional ids of {} not done ({}); the next run tries again",
                                    ids.size(), tp, error != null ? error : result);
                        } else {
                            LOG.info("{} transactional ids of {} idle for {} ms proposed for expiry: {}", ids.size(),
                                    tp, expirationMs, result);
                        }
                    }));
        }
    }
}
