package dev.cairn.broker.api;

import dev.cairn.broker.cluster.Leadership;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.PartitionState;
import dev.cairn.broker.cluster.ReplicatedPartitions;
import dev.cairn.broker.cluster.TopicInfo;
import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.Result;
import dev.cairn.broker.partition.TransactionRecord;
import dev.cairn.broker.partition.TxnPartition;
import dev.cairn.broker.partition.TxnStatus;
import dev.cairn.protocol.ErrorCode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The transaction coordinator's front (issue 20, docs/transactions.md): a transactional id belongs to one partition
 * of {@code __transaction_state} (its hash modulo the partition count, as in Kafka), and the leader of that partition
 * coordinates it. Every change to a transactional id is a command that partition's Raft group applies
 * ({@link dev.cairn.broker.partition.CoordinatorTransactions} decides it, by Kafka's rules), so a new leader
 * coordinates from exactly the state the old one left. The topic is created the first time a client looks for a
 * transaction coordinator. {@link TransactionMarkerWriter} ends the transactions this broker coordinates.
 */
public final class TransactionCoordinator {
    public static final String TOPIC = "__transaction_state";
    /** How long a marker or a completion the coordinator writes on its own may take before it is tried again. */
    static final long SUBMIT_TIMEOUT_MS = 30_000;
    /**
     * How long a client's command may take to commit before the client is told to retry (retriable
     * COORDINATOR_LOAD_IN_PROGRESS; every command is safe to repeat). Well inside the clients' request timeouts:
     * franz-go allows 10 s to requests without a timeout field, and TxnOffsetCommit spends this and then up to the
     * offset commit's 5 s.
     */
    static final long REQUEST_SUBMIT_TIMEOUT_MS = 4_000;

    private final MetadataService metadata;
    private final ReplicatedPartitions partitions;
    private final TopicCreator creator;
    private final ProducerIds producerIds;
    private final int partitionCount;
    private final int replicationFactor;
    private final int maxTimeoutMs;
    private final LongSupplier clockMs;
    private final AtomicReference<CompletableFuture<MetadataResult>> creating = new AtomicReference<>();

    /**
     * @param partitionCount {@code transaction.state.log.num.partitions}, used when the topic is created
     * @param replicationFactor {@code transaction.state.log.replication.factor}, at most the registered brokers
     * @param maxTimeoutMs {@code transaction.max.timeout.ms}
     */
    public TransactionCoordinator(MetadataService metadata, ReplicatedPartitions partitions, TopicCreator creator,
            ProducerIds producerIds, int partitionCount, int replicationFactor, int maxTimeoutMs,
            LongSupplier clockMs) {
        this.metadata = metadata;
        this.partitions = partitions;
        this.creator = creator;
        this.producerIds = producerIds;
        this.partitionCount = partitionCount;
        this.replicationFactor = replicationFactor;
        this.maxTimeoutMs = maxTimeoutMs;
        this.clockMs = clockMs;
    }

    /** The {@code __transaction_state} partition that holds {@code transactionalId}, null before the topic exists. */
    TopicPartition partitionOf(String transactionalId) {
        TopicInfo topic = metadata.image().topics().get(TOPIC);
        return topic == null ? null
                : new TopicPartition(TOPIC, Math.floorMod(transactionalId.hashCode(), topic.partitionCount()));
    }

    /**
     * The node that coordinates {@code transactionalId}: its partition's leader, or -1 while there is none yet (the
     * topic is being created, or its groups elect), which FindCoordinator answers with a retriable error.
     */
    public int coordinatorNode(String transactionalId) {
        TopicPartition tp = partitionOf(transactionalId);
        if (tp == null) {
            createTopic();
            return -1;
        }
        Leadership local = partitions.leadership(tp);
        if (local.leaderId() >= 0) {
            return local.leaderId();
        }
        return metadata.image().partitionState(tp).map(PartitionState::leaderId).orElse(-1);
    }

    private void createTopic() {
        CompletableFuture<MetadataResult> pending = creating.get();
        if (pending != null && !pending.isDone()) {
            return;
        }
        int brokers = Math.max(1, metadata.image().brokers().size());
        CompletableFuture<MetadataResult> started = creator.create(TOPIC, partitionCount,
                Math.min(replicationFactor, brokers), Map.of());
        creating.set(started);
    }

    /** InitProducerId with a transactional id (the producer's first call, and each new session's). */
    public CompletableFuture<Result.TxnAnswer> initProducerId(String transactionalId, int timeoutMs,
            long expectedProducerId, short expectedEpoch) {
        if (timeoutMs <= 0 || timeoutMs > maxTimeoutMs) {
            return answer(ErrorCode.INVALID_TRANSACTION_TIMEOUT, "transaction timeout " + timeoutMs + " ms is "
                    + "outside (0, " + maxTimeoutMs + "] (transaction.max.timeout.ms)");
        }
        if (coordinatedPartition(transactionalId) == null) {
            return notCoordinator(transactionalId);
        }
        return producerIds.next().thenCompose(candidate -> candidate < 0
                ? answer(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no producer id could be reserved")
                : submit(transactionalId, new Command.TxnInit(transactionalId, timeoutMs, candidate,
                        expectedProducerId, expectedEpoch, clockMs.getAsLong())));
    }

    /** Applies a coordinator command to {@code transactionalId}'s partition, when this broker coordinates it. */
    public CompletableFuture<Result.TxnAnswer> submit(String transactionalId, Command command) {
        TopicPartition tp = coordinatedPartition(transactionalId);
        if (tp == null) {
            return notCoordinator(transactionalId);
        }
        return partitions.submit(tp, command, REQUEST_SUBMIT_TIMEOUT_MS).thenApply(TransactionCoordinator::toAnswer);
    }

    /**
     * Applies a coordinator command to {@code transactionalId}'s partition from any broker (through its leader): for
     * requests that reach another coordinator first (TxnOffsetCommit, at the group's coordinator).
     */
    public CompletableFuture<Result.TxnAnswer> submitViaCoordinator(String transactionalId, Command command) {
        TopicPartition tp = partitionOf(transactionalId);
        if (tp == null) {
            return answer(ErrorCode.INVALID_TXN_STATE, "no transaction has begun: " + TOPIC + " does not exist");
        }
        return partitions.submitViaLeader(tp, command, REQUEST_SUBMIT_TIMEOUT_MS)
                .thenApply(TransactionCoordinator::toAnswer);
    }

    /** KIP-890: whether {@code tp} is in the ongoing transaction of the producer; NONE when it is. */
    public CompletableFuture<ErrorCode> verify(String transactionalId, long producerId, short epoch,
            TopicPartition tp) {
        return submitViaCoordinator(transactionalId, new Command.TxnVerify(transactionalId, producerId, epoch,
                new TxnPartition(tp.topic(), tp.partition()))).thenApply(Result.TxnAnswer::error);
    }

    /** The transactional ids this broker coordinates now (those of the state partitions it leads). */
    public java.util.List<TransactionRecord> coordinatedTransactions() {
        TopicInfo topic = metadata.image().topics().get(TOPIC);
        java.util.List<TransactionRecord> records = new java.util.ArrayList<>();
        for (int index = 0; topic != null && index < topic.partitionCount(); index++) {
            partitions.leaderReplica(new TopicPartition(TOPIC, index))
                    .ifPresent(led -> records.addAll(led.coordinatedTransactions(false)));
        }
        return records;
    }

    /**
     * {@code transactionalId} as this broker coordinates it: the record (null when the id is unknown here), or
     * NOT_COORDINATOR when another broker coordinates it.
     */
    public java.util.Optional<TransactionRecord> describe(String transactionalId) throws NotCoordinatorException {
        TopicPartition tp = coordinatedPartition(transactionalId);
        if (tp == null) {
            throw new NotCoordinatorException();
        }
        return partitions.leaderReplica(tp).flatMap(led -> led.coordinatedTransactions(false).stream()
                .filter(record -> record.transactionalId().equals(transactionalId)).findFirst());
    }

    /** This broker does not coordinate the transactional id asked about. */
    public static final class NotCoordinatorException extends Exception {
        private static final long serialVersionUID = 1L;

        NotCoordinatorException() {
            super(null, null, false, false);
        }
    }

    /** Kafka's name of a transaction state (ListTransactions, DescribeTransactions, kafka-transactions.sh). */
    public static String stateName(TxnStatus status) {
        return switch (status) {
            case EMPTY -> "Empty";
            case ONGOING -> "Ongoing";
            case PREPARE_COMMIT -> "PrepareCommit";
            case PREPARE_ABORT -> "PrepareAbort";
            case COMPLETE_COMMIT -> "CompleteCommit";
            case COMPLETE_ABORT -> "CompleteAbort";
        };
    }

    /** The partition of {@code transactionalId} when this broker is its ready leader, else null. */
    private TopicPartition coordinatedPartition(String transactionalId) {
        TopicPartition tp = partitionOf(transactionalId);
        return tp != null && partitions.leaderReplica(tp).isPresent() ? tp : null;
    }

    private CompletableFuture<Result.TxnAnswer> notCoordinator(String transactionalId) {
        return answer(ErrorCode.NOT_COORDINATOR, "broker " + metadata.localNodeId() + " does not coordinate "
                + "transactional id " + transactionalId);
    }

    /**
     * A coordinator command's result as the client's answer: losing the leadership means another broker coordinates
     * now (NOT_COORDINATOR: the client looks again); an unknown outcome is retried against the same coordinator
     * (every command is safe to repeat).
     */
    static Result.TxnAnswer toAnswer(Result result) {
        if (result instanceof Result.TxnAnswer answer) {
            return answer;
        }
        if (result instanceof Result.Rejected rejected) {
            ErrorCode error = switch (rejected.error()) {
                case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> ErrorCode.NOT_COORDINATOR;
                default -> ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
            };
            return new Result.TxnAnswer(error, -1, (short) -1, rejected.message());
        }
        return new Result.TxnAnswer(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1, (short) -1, "unexpected " + result);
    }

    private static CompletableFuture<Result.TxnAnswer> answer(ErrorCode error, String message) {
        return CompletableFuture.completedFuture(new Result.TxnAnswer(error, -1, (short) -1, message));
    }

    long nowMs() {
        return clockMs.getAsLong();
    }

    ReplicatedPartitions partitions() {
        return partitions;
    }

    MetadataService metadata() {
        return metadata;
    }
}
