package dev.cairn.broker.api;

import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.TransactionVerifications;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The produce path's half of KIP-890 (docs/transactions.md): before a partition's leader takes a transactional
 * batch that would open a transaction here, it asks the producer's coordinator whether the partition is in the
 * producer's ongoing transaction. The batch is registered with the partition's {@link TransactionVerifications}
 * first, so a marker of the producer placed while the question is out cancels it, and the placement refuses it.
 * Errors are Kafka's: INVALID_TXN_STATE when the partition is not in the transaction, NOT_ENOUGH_REPLICAS
 * (retriable, as Kafka answers older clients) when the coordinator cannot answer now.
 *
 * <p>Order: a producer's batches to a partition are submitted in the order they arrived, whatever order their
 * verifications end in (a later batch submitted first would be refused as out of order, and the earlier one after
 * it). While one of a producer's batches waits for its turn, the producer's next batches to the partition queue
 * behind it; each turn is held only until the batch is handed to the partition's submit lane. The queue is bounded
 * by the requests in flight, which the broker's queued request bytes bound.
 */
final class TransactionVerifier {
    private final TransactionCoordinator coordinator;
    private final ReplicatedPartitions partitions;
    /** Per partition and producer: completes once the last batch queued has been handed to its partition. */
    private final Map<Turn, CompletableFuture<Void>> turns = new ConcurrentHashMap<>();

    private record Turn(TopicPartition partition, long producerId) {
    }

    TransactionVerifier(TransactionCoordinator coordinator, ReplicatedPartitions partitions) {
        this.coordinator = coordinator;
        this.partitions = partitions;
    }

    /**
     * Whether the producer's transaction is open at the partition, as the leader placed it or as it applied: its
     * batches need no verification. Either view may be ahead of the other; a batch sent unverified because of a view
     * that a marker has since overtaken is refused where it is placed or applied, and retried.
     */
    private static boolean openHere(Partition partition, TransactionVerifications verifications, long producerId) {
        return verifications.isOpen(producerId) || partition.transactionOpen(producerId);
    }

    /**
     * Hands {@code batch} to {@code submit} once it may be submitted to {@code tp} (not transactional, or verified)
     * and every earlier batch of its producer to {@code tp} has been; otherwise answers {@code refuse} with the error.
     * {@code submit} must hand the batch to the partition before it returns (its result may complete later).
     */
    <T> CompletableFuture<T> submitInOrder(String transactionalId, TopicPartition tp, ByteBuffer batch,
            Function<ErrorCode, T> refuse, java.util.function.Supplier<CompletableFuture<T>> submit) {
        int start = batch.position();
        if ((batch.getShort(start + RecordBatchDescriptor.ATTRIBUTES_OFFSET)
                & RecordBatchDescriptor.TRANSACTIONAL_MASK) == 0 || coordinator == null) {
            return submit.get();
        }
        if (transactionalId == null) {
            return CompletableFuture.completedFuture(refuse.apply(ErrorCode.INVALID_REQUEST));   // no id to verify
        }
        Optional<Partition> led = partitions.leaderReplica(tp);
        if (led.isEmpty()) {
            return CompletableFuture.completedFuture(refuse.apply(ErrorCode.NOT_LEADER_OR_FOLLOWER));
        }
        long producerId = batch.getLong(start + RecordBatchDescriptor.PRODUCER_ID_OFFSET);
        short epoch = batch.getShort(start + RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET);
        TransactionVerifications verifications = led.get().verifications();
        Partition partition = led.get();
        Turn key = new Turn(tp, producerId);
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        synchronized (turns) {
            previous = turns.get(key);
            if (previous == null && openHere(partition, verifications, producerId)) {
                return submit.get();   // the transaction is open here and nothing of the producer waits: no turn
            }
            turns.put(key, mine);
        }
        CompletableFuture<ErrorCode> verified;
        if (openHere(partition, verifications, producerId)) {
            verified = CompletableFuture.completedFuture(ErrorCode.NONE);
        } else {
            verifications.register(producerId, epoch, batch.getInt(start + RecordBatchDescriptor.BASE_SEQUENCE_OFFSET));
            verified = coordinator.verify(transactionalId, producerId, epoch, tp).thenApply(answer -> switch (answer) {
                case NONE, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> answer;
                case PRODUCER_FENCED -> ErrorCode.INVALID_PRODUCER_EPOCH;
                default -> ErrorCode.NOT_ENOUGH_REPLICAS;
            }).exceptionally(error -> ErrorCode.NOT_ENOUGH_REPLICAS);
        }
        CompletableFuture<Void> turn = previous == null ? CompletableFuture.completedFuture(null) : previous;
        return turn.thenCombine(verified, (ignored, error) -> error).thenCompose(error -> {
            try {
                return error == ErrorCode.NONE ? submit.get() : CompletableFuture.completedFuture(refuse.apply(error));
            } finally {
                synchronized (turns) {
                    turns.remove(key, mine);
                }
                mine.complete(null);
            }
        });
    }
}
