package dev.cairn.broker.partition;

import java.nio.ByteBuffer;

/**
 * A change to one partition, replicated through its Raft group and applied by {@link Partition} in log order.
 * Anything non-deterministic (the append time) is stamped by the leader before replication (style.md point 5).
 */
public sealed interface Command {

    /**
     * Appends one validated RecordBatch v2. {@code appendTimeMs} is the leader's clock when it accepted the
     * batch: the LogAppendTime for topics that use it, and the time segment rolls and retention are measured
     * against, so every replica rolls and deletes at the same log positions.
     */
    record Append(ByteBuffer batch, long appendTimeMs) implements Command {
    }

    /**
     * An {@link Append} of a transactional batch on a path where offsets are decided as entries apply (the Cairn Raft
     * engine), with KIP-890's verification made replicated (docs/transactions.md): {@code verifiedInTerm} is the leader
     * term in which the batch was verified with its coordinator and no marker of its producer was proposed since, or
     * -1. A batch that would open a transaction applies only when that term is its own entry's term.
     */
    record AppendChecked(Append append, long verifiedInTerm) implements Command {
    }

    /**
     * An {@link Append} whose place the leader decided before replication (the write-once path, docs/write-path.md):
     * the batch is the Raft entry's state machine data, which every replica writes into its segment at
     * {@code baseOffset} as the entry is appended to its Raft log; this header is all the Raft log keeps. Applying
     * it only makes the batch visible (the high watermark) and records the producer's batch.
     */
    record AppendAt(long baseOffset, long appendTimeMs, int sizeBytes, int crc, int lastOffsetDelta, long producerId,
            short producerEpoch, int firstSequence, int lastSequence, long maxTimestamp, TxnRole txn)
            implements Command {
        /** A placement outside any transaction. */
        public AppendAt(long baseOffset, long appendTimeMs, int sizeBytes, int crc, int lastOffsetDelta,
                long producerId, short producerEpoch, int firstSequence, int lastSequence, long maxTimestamp) {
            this(baseOffset, appendTimeMs, sizeBytes, crc, lastOffsetDelta, producerId, producerEpoch, firstSequence,
                    lastSequence, maxTimestamp, TxnRole.NONE);
        }

        public long lastOffset() {
            return baseOffset + lastOffsetDelta;
        }
    }

    /** The leader found the batch already placed (an idempotent retry): answered with the original's offsets. */
    record AppendDuplicate(long baseOffset, long lastOffset) implements Command {
    }

    /** The leader refused the batch (a sequence or epoch error): answered with the error, nothing appended. */
    record AppendRefused(dev.cairn.protocol.ErrorCode error, String reason) implements Command {
    }

    /**
     * Ends a producer's transaction on this partition (a transaction marker, written for the transaction
     * coordinator): the leader places a control batch for it, stamped {@code appendTimeMs}, as it places an append.
     * A marker older than the producer's current epoch is refused (INVALID_PRODUCER_EPOCH); a newer one fences the
     * producer's older epochs here.
     */
    record TxnMarker(long producerId, short producerEpoch, boolean commit, int coordinatorEpoch, long appendTimeMs)
            implements Command {
    }

    /**
     * The transaction coordinator's commands, applied by a {@code __transaction_state} partition
     * ({@link CoordinatorTransactions}); {@code nowMs} is the coordinator's clock. InitProducerId: a transactional id
     * gets its producer id ({@code candidateProducerId} when it needs a new one) and a new epoch;
     * {@code expectedProducerId} -1 unless the producer names the id and epoch it holds (KIP-360).
     */
    record TxnInit(String transactionalId, int timeoutMs, long candidateProducerId, long expectedProducerId,
            short expectedEpoch, long nowMs) implements Command {
    }

    /**
     * AddPartitionsToTxn (and AddOffsetsToTxn with no partition): the transaction writes these partitions, or, with
     * {@code offsets} (TxnOffsetCommit), commits consumer offsets for them.
     */
    record TxnAddPartitions(String transactionalId, long producerId, short producerEpoch,
            java.util.List<TxnPartition> partitions, boolean offsets, long nowMs) implements Command {
        public TxnAddPartitions {
            partitions = java.util.List.copyOf(partitions);
        }
    }

    /**
     * EndTxn: the transaction is to commit or abort (its markers are written next); {@code expired}: the
     * coordinator's own abort of a transaction past its timeout, under a new epoch.
     */
    record TxnEnd(String transactionalId, long producerId, short producerEpoch, boolean commit, boolean expired,
            long nowMs) implements Command {
    }

    /**
     * KIP-890's verification, asked by a partition's leader before it takes a producer's first transactional batch:
     * is {@code partition} in the producer's ongoing transaction? Changes nothing; the answer is a TxnAnswer.
     */
    record TxnVerify(String transactionalId, long producerId, short producerEpoch, TxnPartition partition)
            implements Command {
    }

    /**
     * Kafka's {@code transactional.id.expiration.ms}: the coordinator's leader proposes the transactional ids it found
     * idle for {@code expirationMs} as of {@code nowMs} (both stamped by the leader: its clock and its setting), and
     * each is removed only if, as this entry applies, it still holds no transaction (Empty, CompleteCommit or
     * CompleteAbort) and was last updated {@code expirationMs} or more before {@code nowMs}. At most
     * {@link CoordinatorTransactions#EXPIRED_IDS_PER_COMMAND_MAX} ids.
     */
    record TxnExpireIds(java.util.List<String> transactionalIds, long expirationMs, long nowMs) implements Command {
        public TxnExpireIds {
            transactionalIds = java.util.List.copyOf(transactionalIds);
        }
    }

    /** Every marker of the ending transaction is written: it is complete. */
    record TxnComplete(String transactionalId, long producerId, short producerEpoch, long nowMs) implements Command {
    }

    /**
     * TxnOffsetCommit: a group's offset for this partition, committed by a producer's transaction: it stays pending
     * until the producer's marker arrives here, and takes effect only if that marker commits.
     */
    record TxnCommitOffset(long producerId, short producerEpoch, String groupId, long offset, int leaderEpoch,
            String metadata, long commitTimeMs) implements Command {
    }

    /**
     * Ends a producer's transaction on a partition it only committed consumer offsets for: the offsets it holds pending
     * here take effect if it commits; no marker is written to the log (the transaction wrote nothing there).
     */
    record TxnEndOffsets(long producerId, short producerEpoch, boolean commit) implements Command {
    }

    /** Stores a consumer group's committed offset for this partition. */
    record CommitOffset(String groupId, long offset, int leaderEpoch, String metadata, long commitTimeMs)
            implements Command {
    }

    /** Deletes a consumer group's committed offset for this partition (DeleteGroups, OffsetDelete). */
    record DeleteOffset(String groupId) implements Command {
    }

    /**
     * Moves the log start offset up to {@code offset} (DeleteRecords); {@link #HIGH_WATERMARK} means the high
     * watermark as of this entry, so every replica resolves it at the same log position.
     */
    record DeleteRecords(long offset) implements Command {
        public static final long HIGH_WATERMARK = -1;
    }

    /**
     * Applies time- and size-based retention as of {@code nowMs} (the leader's clock), so every replica deletes
     * the same segments at the same point of the log.
     */
    record EnforceRetention(long nowMs) implements Command {
    }

    /**
     * Compacts the log's inactive segments that end at or below {@code upToOffset} (log compaction, cleanup.policy
     * compact), mapping the keys of the records from {@code dirtyFromOffset} (where the previous pass ended), as of
     * {@code nowMs} (the leader's clock, against which tombstones age). The leader picks the offsets, so every replica
     * cleans the same segments at the same log position and keeps the same bytes.
     */
    record Compact(long dirtyFromOffset, long upToOffset, long nowMs) implements Command {
    }

    /**
     * Sets the topic configs this partition's log follows from here on ({@code segment.bytes}, {@code segment.ms},
     * {@code retention.*}, {@code cleanup.policy}), replacing those it was created with or last given: every replica
     * switches at the same log position, so all roll and delete the same segments. Carries every topic-level
     * override (IncrementalAlterConfigs, AlterConfigs), those that do not shape the log included.
     */
    record Reconfigure(java.util.Map<String, String> topicConfigs) implements Command {
        public Reconfigure {
            topicConfigs = java.util.Map.copyOf(topicConfigs);
        }
    }
}
