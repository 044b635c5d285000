package dev.cairn.broker.engine;

import dev.cairn.broker.cluster.TopicPartition;
import dev.cairn.broker.io.StorageException;
import dev.cairn.broker.partition.Command;
import dev.cairn.broker.partition.CommandCodec;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.Partition;
import dev.cairn.broker.partition.Result;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.raft.Entry;
import dev.cairn.raft.runtime.GroupStateMachine;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's group on the engine: committed entries (commands in {@link CommandCodec}'s format, each batch
 * inside its entry) apply to the partition's {@link Partition}, and the {@link Result} is the proposal's value on the
 * leader, handed over without encoding.
 *
 * <p>It never throws into the engine, which stops every group of the broker on a machine's exception (fail-stop): a
 * command that cannot be read is answered CORRUPT_MESSAGE on every replica alike; a storage failure takes this
 * partition offline here (KAFKA_STORAGE_ERROR to its clients, later entries skipped) until the broker restarts.
 *
 * <p>The partition is opened and restored by its host before the group is created; entries at or below what it
 * already holds ({@link Partition#appliedRaftIndex()}) are skipped when the engine replays its log at start.
 */
final class EnginePartitionMachine implements GroupStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePartitionMachine.class);

    private final TopicPartition tp;
    private final Partition partition;
    private final Runnable onAppended;
    private volatile StorageException offline;
    /** The thread that last applied: the log is single-writer, and the engine may apply on a pool (in order). */
    private Thread writer;

    EnginePartitionMachine(TopicPartition tp, Partition partition, Runnable onAppended) {
        this.tp = tp;
        this.partition = partition;
        this.onAppended = onAppended;
    }

    Partition partition() {
        return partition;
    }

    /** The storage failure that took this partition offline here, or null while it is healthy. */
    StorageException offlineCause() {
        return offline;
    }

    @Override
    public long appliedIndex() {
        return partition.appliedRaftIndex();
    }

    @Override
    public Object apply(Entry entry) {
        if (entry.data().length == 0 || entry.raftIndex() <= partition.appliedRaftIndex()) {
            return null;   // a new leader's no-op, or an entry this replica held before the engine replayed it
        }
        if (offline != null) {
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + " is offline on this broker: "
                    + offline.getMessage());
        }
        Thread current = Thread.currentThread();
        if (writer != current) {
            writer = current;
            partition.claimWriter();
        }
        Result result;
        try {
            Command command = CommandCodec.decodeCommand(ByteBuffer.wrap(entry.data()));
            result = partition.apply(entry.raftIndex(), (int) entry.term(), command);
        } catch (CommandFormatException e) {
            LOG.error("{}: unreadable command at raft index {}: {}", tp, entry.raftIndex(), e.getMessage());
            return new Result.Rejected(ErrorCode.CORRUPT_MESSAGE, e.getMessage());
        } catch (RuntimeException e) {
            StorageException failure = e instanceof StorageException storage ? storage
                    : new StorageException("applying raft index " + entry.raftIndex() + " failed: " + e, e);
            offline = failure;
            LOG.error("{}: storage failure at raft index {}; the partition is offline here until restart", tp,
                    entry.raftIndex(), failure);
            return new Result.Rejected(ErrorCode.KAFKA_STORAGE_ERROR, tp + ": " + failure.getMessage());
        }
        if (result instanceof Result.Appended appended && !appended.duplicate()) {
            onAppended.run();
        }
        return result;
    }

    /** The command as one entry's bytes: the single copy of a produced batch on the way into Raft. */
    static byte[] encode(Command command) {
        ByteBuffer[] parts = CommandCodec.encodeParts(command);
        int size = 0;
        for (ByteBuffer part : parts) {
            size += part.remaining();
        }
        byte[] bytes = new byte[size];
        int at = 0;
        for (ByteBuffer part : parts) {
            int length = part.remaining();
            part.duplicate().get(bytes, at, length);
            at += length;
        }
        return bytes;
    }
}
