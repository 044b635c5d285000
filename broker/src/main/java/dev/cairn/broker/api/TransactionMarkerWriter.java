package dev.cairn.broker.api;

import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TransactionRecord;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.broker.partition.TxnStatus;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the transactions this broker coordinates, run every {@link #INTERVAL_MS} on the broker's timer: for each
 * transaction being committed or aborted, a marker is written through each of its partitions' Raft groups (from any
 * broker, {@code submitViaLeader}; a partition it only committed offsets for gets a TxnEndOffsets instead, which writes
 * nothing to its log), and once every one is written the transaction is completed in the coordinator's
 * partition; a transaction open longer than its timeout is aborted under a new epoch (fencing its producer). A
 * marker that fails is written again at the next run: repeating one is harmless (the partition finds the transaction
 * ended already and only logs another control batch). A new coordinator (a new leader of the partition) picks up
 * whatever its predecessor left, since the state is replicated; markers carry the coordinator's leader epoch.
 */
public final class TransactionMarkerWriter implements Runnable {
    /** How often the transactions this broker coordinates are checked. */
    public static final long INTERVAL_MS = 100;
    /** Markers of one transaction written at the same time: its partitions are written in waves of this many. */
    static final int MARKERS_IN_FLIGHT_MAX = 256;
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkerWriter.class);

    private final TransactionCoordinator coordinator;
    /** Transactions being ended or expired now (id, epoch, status), so a run does not start them twice. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

    public TransactionMarkerWriter(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public void run() {
        try {
            TopicInfo topic = coordinator.metadata().image().topics().get(TransactionCoordinator.TOPIC);
            if (topic == null) {
                return;
            }
            ReplicatedPartitions partitions = coordinator.partitions();
            for (int index = 0; index < topic.partitionCount(); index++) {
                TopicPartition tp = new TopicPartition(TransactionCoordinator.TOPIC, index);
                Optional<Partition> led = partitions.leaderReplica(tp);
                if (led.isEmpty()) {
                    continue;
                }
                int coordinatorEpoch = partitions.leadership(tp).leaderEpoch();
                long nowMs = coordinator.nowMs();
                for (TransactionRecord record : led.get().coordinatedTransactions(true)) {
                    if (record.status().isPreparing()) {
                        end(tp, record, coordinatorEpoch);
                    } else if (record.expired(nowMs)) {
                        expire(record, nowMs);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("ending transactions failed; the next run tries again", e);
        }
    }

    private void end(TopicPartition coordinatorPartition, TransactionRecord record, int coordinatorEpoch) {
        String key = record.transactionalId() + "/" + record.producerEpoch() + "/" + record.status();
        if (!inFlight.add(key)) {
            return;
        }
        boolean commit = record.status() == TxnStatus.PREPARE_COMMIT;
        Command.TxnMarker marker = new Command.TxnMarker(record.producerId(), record.producerEpoch(), commit,
                coordinatorEpoch, coordinator.nowMs());
        Command.TxnEndOffsets endOffsets = new Command.TxnEndOffsets(record.producerId(), record.producerEpoch(),
                commit);
        writeMarkers(new ArrayList<>(record.partitions()), 0, marker)
                .thenCompose(written -> written ? writeMarkers(new ArrayList<>(record.offsetsOnlyPartitions()), 0,
                        endOffsets) : CompletableFuture.completedFuture(false))
                .thenCompose(written -> written ? coordinator.partitions().submit(coordinatorPartition,
                        new Command.TxnComplete(record.transactionalId(), record.producerId(),
                                record.producerEpoch(), coordinator.nowMs()), TransactionCoordinator.SUBMIT_TIMEOUT_MS)
                        : CompletableFuture.completedFuture(null))
                .whenComplete((done, error) -> {
                    inFlight.remove(key);
                    if (error != null) {
                        LOG.debug("ending transaction {} failed; retried", record.transactionalId(), error);
                    }
                });
    }

    /**
     * Writes the marker (or the end of its offsets) to {@code partitions} from {@code from} on, a wave at a time; true
     * when all are written.
     */
    private CompletableFuture<Boolean> writeMarkers(List<TxnPartition> partitions, int from, Command marker) {
        if (from >= partitions.size()) {
            return CompletableFuture.completedFuture(true);
        }
        int to = Math.min(partitions.size(), from + MARKERS_IN_FLIGHT_MAX);
        List<CompletableFuture<Boolean>> wave = new ArrayList<>();
        for (TxnPartition target : partitions.subList(from, to)) {
            TopicPartition tp = new TopicPartition(target.topic(), target.partition());
            wave.add(coordinator.partitions().submitViaLeader(tp, marker, TransactionCoordinator.SUBMIT_TIMEOUT_MS)
                    .thenApply(result -> markerDone(tp, result)));
        }
        return CompletableFuture.allOf(wave.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            boolean all = wave.stream().allMatch(CompletableFuture::join);
            return all ? writeMarkers(partitions, to, marker) : CompletableFuture.completedFuture(false);
        });
    }

    /**
     * Whether a marker needs no further attempt: written; refused because a newer epoch of the producer wrote there
     * (that epoch's markers end whatever this one left open); or its topic is gone.
     */
    private boolean markerDone(TopicPartition tp, Result result) {
        if (result instanceof Result.Appended || result instanceof Result.OffsetCommitted) {
            return true;
        }
        if (result instanceof Result.Rejected rejected) {
            if (rejected.error() == ErrorCode.INVALID_PRODUCER_EPOCH) {
                return true;
            }
            boolean gone = !coordinator.metadata().image().topics().containsKey(tp.topic());
            if (!gone) {
                LOG.debug("transaction marker to {} not written: {}", tp, rejected.message());
            }
            return gone;
        }
        return false;
    }

    private void expire(TransactionRecord record, long nowMs) {
        String key = record.transactionalId() + "/" + record.producerEpoch() + "/expire";
        if (!inFlight.add(key)) {
            return;
        }
        LOG.info("transaction of {} (producer {} epoch {}) is open past its timeout of {} ms: aborting it",
                record.transactionalId(), record.producerId(), record.producerEpoch(), record.timeoutMs());
        coordinator.submit(record.transactionalId(), new Command.TxnEnd(record.transactionalId(),
                record.producerId(), record.producerEpoch(), false, true, nowMs))
                .whenComplete((answer, error) -> inFlight.remove(key));
    }
}
