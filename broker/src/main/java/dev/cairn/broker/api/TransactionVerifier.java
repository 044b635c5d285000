package dev.cairn.broker.api;

import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.TransactionVerifications;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The produce path's half of KIP-890 (docs/transactions.md): before a partition's leader takes a transactional
 * batch that would open a transaction here, it asks the producer's coordinator whether the partition is in the
 * producer's ongoing transaction. The batch is registered with the partition's {@link TransactionVerifications}
 * first, so a marker of the producer placed while the question is out cancels it, and the placement refuses it.
 * Errors are Kafka's: INVALID_TXN_STATE when the partition is not in the transaction, NOT_ENOUGH_REPLICAS
 * (retriable, as Kafka answers older clients) when the coordinator cannot answer now.
 */
final class TransactionVerifier {
    private final TransactionCoordinator coordinator;
    private final ReplicatedPartitions partitions;

    TransactionVerifier(TransactionCoordinator coordinator, ReplicatedPartitions partitions) {
        this.coordinator = coordinator;
        this.partitions = partitions;
    }

    /** NONE when {@code batch} may be submitted to {@code tp} (not transactional, or verified); else the error. */
    CompletableFuture<ErrorCode> verify(String transactionalId, TopicPartition tp, ByteBuffer batch) {
        int start = batch.position();
        if ((batch.getShort(start + RecordBatchDescriptor.ATTRIBUTES_OFFSET)
                & RecordBatchDescriptor.TRANSACTIONAL_MASK) == 0 || coordinator == null) {
            return CompletableFuture.completedFuture(ErrorCode.NONE);
        }
        if (transactionalId == null) {
            return CompletableFuture.completedFuture(ErrorCode.INVALID_REQUEST);   // Kafka's: no id to verify with
        }
        Optional<Partition> led = partitions.leaderReplica(tp);
        if (led.isEmpty()) {
            return CompletableFuture.completedFuture(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        }
        long producerId = batch.getLong(start + RecordBatchDescriptor.PRODUCER_ID_OFFSET);
        short epoch = batch.getShort(start + RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET);
        TransactionVerifications verifications = led.get().verifications();
        if (verifications.isOpen(producerId)) {
            return CompletableFuture.completedFuture(ErrorCode.NONE);
        }
        verifications.register(producerId, epoch, batch.getInt(start + RecordBatchDescriptor.BASE_SEQUENCE_OFFSET));
        return coordinator.verify(transactionalId, producerId, epoch, tp).thenApply(answer -> switch (answer) {
            case NONE, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING -> answer;
            case PRODUCER_FENCED -> ErrorCode.INVALID_PRODUCER_EPOCH;
            default -> ErrorCode.NOT_ENOUGH_REPLICAS;
        });
    }
}
