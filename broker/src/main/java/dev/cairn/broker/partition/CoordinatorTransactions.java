package dev.cairn.broker.partition;

import dev.cairn.broker.partition.Command.TxnAddPartitions;
import dev.cairn.broker.partition.Command.TxnComplete;
import dev.cairn.broker.partition.Command.TxnEnd;
import dev.cairn.broker.partition.Command.TxnInit;
import dev.cairn.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The transaction coordinator's state, kept by the partitions of {@code __transaction_state} (each transactional id
 * hashes to one): what each transactional id holds, and every change to it decided here, in Raft log order, by the
 * rules of Kafka's coordinator, so that a coordinator failover (a new partition leader) loses nothing and a stale
 * request from a former coordinator or a zombie producer is refused alike on every replica. Written on the apply
 * thread; read by the coordinator's marker and timeout job on any thread (every method is synchronized).
 */
public final class CoordinatorTransactions {
    /** Transactional ids one coordinator partition holds; a new one past it is refused (POLICY_VIOLATION). */
    public static final int TRANSACTIONAL_IDS_MAX = 100_000;
    /** Transactional ids one {@link Command.TxnExpireIds} names at most (the leader proposes more in several). */
    public static final int EXPIRED_IDS_PER_COMMAND_MAX = 1_000;
    /** Partitions one transaction may write; more are refused (POLICY_VIOLATION). */
    public static final int PARTITIONS_PER_TRANSACTION_MAX = 10_000;
    /** The last epoch a producer id is given; past it the transactional id moves to a new producer id. */
    static final short EPOCH_MAX = Short.MAX_VALUE - 1;

    private final Map<String, TransactionRecord> records = new TreeMap<>();
    /** The records with a transaction open or ending: the ones the coordinator's timer acts on. */
    private final Map<String, TransactionRecord> active = new TreeMap<>();

    /** Applies a coordinator command, or answers null when {@code command} is not one. */
    public synchronized Result apply(Command command) {
        if (command instanceof TxnInit init) {
            return init(init);
        }
        if (command instanceof TxnAddPartitions add) {
            return addPartitions(add);
        }
        if (command instanceof TxnEnd end) {
            return end(end);
        }
        if (command instanceof TxnComplete complete) {
            return complete(complete);
        }
        if (command instanceof Command.TxnVerify verify) {
            return verify(verify);
        }
        if (command instanceof Command.TxnExpireIds expire) {
            return expireIds(expire);
        }
        return null;
    }

    /**
     * Removes the proposed transactional ids that, as of this entry, are still idle: no transaction open or ending,
     * and last updated at least {@code expirationMs} before the leader's {@code nowMs} (Kafka's rule). An id that was
     * used since the leader looked, or is unknown, stays as it is. The answer's message counts those removed.
     */
    private Result expireIds(Command.TxnExpireIds expire) {
        int removed = 0;
        for (String id : expire.transactionalIds()) {
            TransactionRecord record = records.get(id);
            if (record != null && record.expirable(expire.nowMs(), expire.expirationMs())) {
                records.remove(id);
                active.remove(id);
                removed++;
            }
        }
        return new Result.TxnAnswer(ErrorCode.NONE, -1, (short) -1, removed + " expired");
    }

    /** KIP-890: NONE when the partition is in the producer's ongoing transaction; INVALID_TXN_STATE otherwise. */
    private Result verify(Command.TxnVerify verify) {
        TransactionRecord record = records.get(verify.transactionalId());
        Result.TxnAnswer fenced = checkProducer(record, verify.transactionalId(), verify.producerId(),
                verify.producerEpoch());
        if (fenced != null) {
            return fenced;
        }
        if (record.status() != TxnStatus.ONGOING || !record.partitions().contains(verify.partition())) {
            return refused(ErrorCode.INVALID_TXN_STATE, verify.partition() + " is not in an ongoing transaction of "
                    + "transactional id " + verify.transactionalId() + " (" + record.status() + ")");
        }
        return answer(ErrorCode.NONE, record);
    }

    private Result init(TxnInit init) {
        TransactionRecord record = records.get(init.transactionalId());
        if (record == null) {
            if (records.size() >= TRANSACTIONAL_IDS_MAX) {
                return refused(ErrorCode.POLICY_VIOLATION, "this coordinator holds " + TRANSACTIONAL_IDS_MAX
                        + " transactional ids at most");
            }
            return store(new TransactionRecord(init.transactionalId(), init.candidateProducerId(), (short) 0,
                    init.timeoutMs(), TxnStatus.EMPTY, new TreeSet<>(), new TreeSet<>(), -1, init.nowMs()));
        }
        if (init.expectedProducerId() >= 0 && (init.expectedProducerId() != record.producerId()
                || init.expectedEpoch() != record.producerEpoch())) {
            return refused(ErrorCode.PRODUCER_FENCED, "transactional id " + init.transactionalId() + " is held by "
                    + "producer " + record.producerId() + " epoch " + record.producerEpoch());
        }
        if (record.status().isPreparing()) {
            return refused(ErrorCode.CONCURRENT_TRANSACTIONS, "the last transaction is still ending");
        }
        if (record.status() == TxnStatus.ONGOING) {
            // A new session of the producer: its open transaction is aborted under a new epoch (fencing the old one),
            // and the producer retries once the markers are written.
            store(record.with(nextEpoch(record), TxnStatus.PREPARE_ABORT, record.startMs(), init.nowMs()));
            return refused(ErrorCode.CONCURRENT_TRANSACTIONS, "the open transaction is being aborted");
        }
        boolean exhausted = record.producerEpoch() >= EPOCH_MAX;
        return store(new TransactionRecord(record.transactionalId(),
                exhausted ? init.candidateProducerId() : record.producerId(),
                exhausted ? 0 : (short) (record.producerEpoch() + 1), init.timeoutMs(), TxnStatus.EMPTY,
                new TreeSet<>(), new TreeSet<>(), -1, init.nowMs()));
    }

    private static short nextEpoch(TransactionRecord record) {
        return (short) Math.min(record.producerEpoch() + 1, EPOCH_MAX);
    }

    private Result addPartitions(TxnAddPartitions add) {
        TransactionRecord record = records.get(add.transactionalId());
        Result.TxnAnswer fenced = checkProducer(record, add.transactionalId(), add.producerId(), add.producerEpoch());
        if (fenced != null) {
            return fenced;
        }
        if (record.status().isPreparing()) {
            return refused(ErrorCode.CONCURRENT_TRANSACTIONS, "the last transaction is still ending");
        }
        boolean open = record.status() == TxnStatus.ONGOING;
        SortedSet<TxnPartition> partitions = new TreeSet<>(open ? record.partitions() : new TreeSet<>());
        SortedSet<TxnPartition> offsetPartitions = new TreeSet<>(open ? record.offsetPartitions() : new TreeSet<>());
        (add.offsets() ? offsetPartitions : partitions).addAll(add.partitions());
        if (partitions.size() + offsetPartitions.size() > PARTITIONS_PER_TRANSACTION_MAX) {
            return refused(ErrorCode.POLICY_VIOLATION, "a transaction writes " + PARTITIONS_PER_TRANSACTION_MAX
                    + " partitions at most");
        }
        return store(new TransactionRecord(record.transactionalId(), record.producerId(), record.producerEpoch(),
                record.timeoutMs(), TxnStatus.ONGOING, partitions, offsetPartitions,
                open ? record.startMs() : add.nowMs(), add.nowMs()));
    }

    private Result end(TxnEnd end) {
        TransactionRecord record = records.get(end.transactionalId());
        if (end.expired()) {
            // The coordinator's own abort of a transaction past its timeout: under a new epoch, so the producer that
            // let it expire is fenced; a no-op when the transaction has moved on meanwhile.
            if (record == null || record.producerId() != end.producerId()
                    || record.producerEpoch() != end.producerEpoch() || record.status() != TxnStatus.ONGOING) {
                return answer(ErrorCode.NONE, record);
            }
            return store(record.with(nextEpoch(record), TxnStatus.PREPARE_ABORT, record.startMs(), end.nowMs()));
        }
        Result.TxnAnswer fenced = checkProducer(record, end.transactionalId(), end.producerId(), end.producerEpoch());
        if (fenced != null) {
            return fenced;
        }
        TxnStatus prepare = end.commit() ? TxnStatus.PREPARE_COMMIT : TxnStatus.PREPARE_ABORT;
        TxnStatus complete = end.commit() ? TxnStatus.COMPLETE_COMMIT : TxnStatus.COMPLETE_ABORT;
        if (record.status() == TxnStatus.ONGOING) {
            return store(record.with(record.producerEpoch(), prepare, record.startMs(), end.nowMs()));
        }
        if (record.status() == prepare || record.status() == complete) {
            return answer(ErrorCode.NONE, record);   // a retried EndTxn
        }
        return refused(ErrorCode.INVALID_TXN_STATE, "cannot " + (end.commit() ? "commit" : "abort") + " a "
                + "transaction that is " + record.status());
    }

    private Result complete(TxnComplete complete) {
        TransactionRecord record = records.get(complete.transactionalId());
        if (record == null || record.producerId() != complete.producerId()
                || record.producerEpoch() != complete.producerEpoch() || !record.status().isPreparing()) {
            return answer(ErrorCode.NONE, record);
        }
        TxnStatus done = record.status() == TxnStatus.PREPARE_COMMIT ? TxnStatus.COMPLETE_COMMIT
                : TxnStatus.COMPLETE_ABORT;
        return store(new TransactionRecord(record.transactionalId(), record.producerId(), record.producerEpoch(),
                record.timeoutMs(), done, new TreeSet<>(), new TreeSet<>(), -1, complete.nowMs()));
    }

    /** Refuses a request from a producer that does not hold the transactional id (null when it does). */
    private static Result.TxnAnswer checkProducer(TransactionRecord record, String transactionalId, long producerId,
            short epoch) {
        if (record == null || record.producerId() != producerId) {
            return refused(ErrorCode.INVALID_PRODUCER_ID_MAPPING, "producer " + producerId + " does not hold "
                    + "transactional id " + transactionalId);
        }
        if (epoch != record.producerEpoch()) {
            return refused(ErrorCode.PRODUCER_FENCED, "producer " + producerId + " epoch " + epoch + " is fenced by "
                    + "epoch " + record.producerEpoch());
        }
        return null;
    }

    private Result.TxnAnswer store(TransactionRecord record) {
        records.put(record.transactionalId(), record);
        index(record);
        return answer(ErrorCode.NONE, record);
    }

    private static Result.TxnAnswer answer(ErrorCode error, TransactionRecord record) {
        return record == null ? new Result.TxnAnswer(error, -1, (short) -1, "")
                : new Result.TxnAnswer(error, record.producerId(), record.producerEpoch(), "");
    }

    private static Result.TxnAnswer refused(ErrorCode error, String reason) {
        return new Result.TxnAnswer(error, -1, (short) -1, reason);
    }

    /**
     * The transactional ids held here, as of the last applied entry; with {@code activeOnly}, only those with a
     * transaction open or ending (a copy of those alone, so the timer that ends and expires transactions costs what
     * is in flight, not every id held).
     */
    public synchronized List<TransactionRecord> records(boolean activeOnly) {
        return new ArrayList<>((activeOnly ? active : records).values());
    }

    private void index(TransactionRecord record) {
        if (record.status() == TxnStatus.ONGOING || record.status().isPreparing()) {
            active.put(record.transactionalId(), record);
        } else {
            active.remove(record.transactionalId());
        }
    }

    public synchronized TransactionRecord record(String transactionalId) {
        return records.get(transactionalId);
    }

    public synchronized void clear() {
        records.clear();
        active.clear();
    }

    /**
     * Snapshot layout: {@code count i32}, then per transactional id in id order {@code id str, producerId i64,
     * epoch i16, timeoutMs i32, status u8, startMs i64, lastUpdateMs i64}, then the written partitions and the
     * offsets-only partitions, each as {@code count i32, count x (topic str, partition i32)}; {@code str} as
     * {@link CommandCodec} writes strings.
     */
    public synchronized byte[] encode() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.nio.ByteBuffer count = java.nio.ByteBuffer.allocate(4).putInt(records.size());
        bytes.writeBytes(count.array());
        for (TransactionRecord record : records.values()) {
            bytes.writeBytes(TxnCommandCodec.encodeRecord(record));
        }
        return bytes.toByteArray();
    }

    /** Replaces the state with one {@link #encode}d (null: none); malformed bytes are a CommandFormatException. */
    public synchronized void restore(byte[] encoded) {
        records.clear();
        active.clear();
        if (encoded == null) {
            return;
        }
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(encoded);
        int count = in.getInt();
        if (count < 0 || count > TRANSACTIONAL_IDS_MAX) {
            throw new CommandFormatException("coordinator snapshot holds " + count + " transactional ids");
        }
        for (int i = 0; i < count; i++) {
            TransactionRecord record = TxnCommandCodec.decodeRecord(in);
            records.put(record.transactionalId(), record);
            index(record);
        }
    }
}
