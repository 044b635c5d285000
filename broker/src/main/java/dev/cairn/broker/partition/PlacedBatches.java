package dev.cairn.broker.partition;

import dev.cairn.broker.log.Invariant;
import dev.cairn.broker.log.Log;
import dev.cairn.broker.log.LogSlice;
import dev.cairn.broker.partition.Command.AppendAt;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.wire.DecodeException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Batches the leader placed ({@link AppendAt}) in the partition's log: written into the segment as their Raft entry
 * is appended, on every replica, ahead of the high watermark; checked when the entry commits; read back for a
 * follower whose entries left Raft's cache (docs/write-path.md). Callers hold the partition's write lock for
 * {@link #place} and {@link #checkCommitted}; {@link #read} runs on any thread.
 */
final class PlacedBatches {
    private final Log log;
    private final RecordBatch header = new RecordBatch();

    PlacedBatches(Log log) {
        this.log = log;
    }

    /**
     * Writes the batch at its placed base offset. A tail above it that Raft never committed (another leader's
     * entries, or bytes written before a crash that never reached the Raft log) is cut first; a gap below it means
     * batches this replica should hold are missing, a StorageException. {@code replaying}: an entry of the old
     * format (the batch in the Raft log), placed as it applies: a batch already there (applied again after a
     * restart) is kept with whatever follows it, anything else above it is cut.
     */
    void place(AppendAt at, ByteBuffer batch, int leaderEpoch, long highWatermark, boolean replaying) {
        checkBatch(at, batch);
        long end = log.logEndOffset();
        if (end > at.baseOffset()) {
            Invariant.check(at.baseOffset() >= highWatermark, "placement at %d below the high watermark %d",
                    at.baseOffset(), highWatermark);
            if (replaying) {
                if (holds(at, leaderEpoch)) {
                    return;   // applied again after a restart: there already, and batches placed after it follow it
                }
                log.truncateTo(at.baseOffset());   // the same batches come back: segments end where they ended
            } else {
                log.truncateUncommittedTo(at.baseOffset());
            }
        } else if (end < at.baseOffset()) {
            throw new PlacedBatchException(log + ": batch placed at " + at.baseOffset() + " but the log ends at " + end
                    + ": the batches between are missing");
        }
        // As for any append: roll by the batch's timestamp against the segment's first, as Kafka does.
        log.maybeRoll(at.maxTimestamp());
        log.appendAsNext(batch, leaderEpoch);
    }

    private void checkBatch(AppendAt at, ByteBuffer batch) {
        try {
            header.wrap(batch, batch.position());
        } catch (DecodeException e) {
            throw new PlacedBatchException(log + ": placed batch unreadable: " + e.getMessage());
        }
        if (header.sizeInBytes() != batch.remaining() || header.sizeInBytes() != at.sizeBytes()
                || header.magic() != RecordBatchDescriptor.MAGIC_V2 || (int) header.checksum() != at.crc()) {
            throw new PlacedBatchException(log + ": the batch of the entry placed at " + at.baseOffset()
                    + " does not match its header (size " + batch.remaining() + ", placed " + at.sizeBytes() + ")");
        }
    }

    /**
     * Checks, as the entry commits, that its batch is in the log; with {@code verifyBytes} (an entry replayed from
     * the Raft log after a restart, which holds only the header, on a topic that is not compacted) that the batch
     * there is this one. Batches that retention or DeleteRecords removed since are not looked for.
     */
    void checkCommitted(AppendAt at, boolean verifyBytes) {
        // Compaction rewrites batches below the high watermark (and drops emptied ones), so only presence is checked
        // where it may have run; the log end never moves back for it.
        if (at.lastOffset() < log.logStartOffset()) {
            return;
        }
        if (log.logEndOffset() <= at.lastOffset()) {
            throw new PlacedBatchException(log + ": committed batch at offsets " + at.baseOffset() + ".."
                    + at.lastOffset() + " is not in the log, which ends at " + log.logEndOffset()
                    + " (written but not flushed before the machine crashed?)", log.logEndOffset());
        }
        if (verifyBytes && at.baseOffset() >= log.logStartOffset()) {
            ByteBuffer found = headerAt(at);
            if (found.getLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET) != at.baseOffset()
                    || found.getInt(RecordBatchDescriptor.CRC_OFFSET) != at.crc()) {
                throw new PlacedBatchException(log + ": the batch at offset " + at.baseOffset() + " is not the one the "
                        + "Raft log committed there", at.baseOffset());
            }
        }
    }

    /**
     * Fills a gap from {@code fromOffset} with committed batches copied from the leader ({@code batches}, whole
     * batches with their offsets, as the leader's log holds them): whatever this log holds from there is cut first.
     */
    void fill(long fromOffset, ByteBuffer batches, long highWatermark) {
        Invariant.check(fromOffset >= highWatermark, "filling from %d below the high watermark %d", fromOffset,
                highWatermark);
        if (log.logEndOffset() > fromOffset) {
            log.truncateUncommittedTo(fromOffset);
        }
        if (log.logEndOffset() != fromOffset) {
            throw new PlacedBatchException(log + ": cannot fill from " + fromOffset + ", the log ends at "
                    + log.logEndOffset());
        }
        ByteBuffer rest = batches.duplicate();
        while (rest.hasRemaining()) {
            RecordBatch batch;
            try {
                batch = header.wrap(rest, rest.position());
            } catch (DecodeException e) {
                throw new PlacedBatchException(log + ": the leader's batches are unreadable: " + e.getMessage());
            }
            int size = batch.sizeInBytes();
            if (size > rest.remaining() || batch.baseOffset() != log.logEndOffset() || !batch.isChecksumValid()) {
                throw new PlacedBatchException(log + ": the leader's batch at " + batch.baseOffset() + " does not "
                        + "follow the log's end " + log.logEndOffset() + " or is damaged");
            }
            log.append(rest.duplicate().limit(rest.position() + size));
            rest.position(rest.position() + size);
        }
    }

    /** Whether the log holds this very batch at its placement (offset, CRC and leader epoch alike). */
    private boolean holds(AppendAt at, int leaderEpoch) {
        ByteBuffer found;
        try {
            found = headerAt(at);
        } catch (PlacedBatchException e) {
            return false;
        }
        return found.getLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET) == at.baseOffset()
                && found.getInt(RecordBatchDescriptor.CRC_OFFSET) == at.crc()
                && found.getInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET) == leaderEpoch;
    }

    private ByteBuffer headerAt(AppendAt at) {
        LogSlice slice = log.read(at.baseOffset(), 1, at.lastOffset() + 1);
        if (slice.firstOffset() != at.baseOffset() || slice.sizeBytes() < RecordBatchDescriptor.HEADER_BYTES) {
            throw new PlacedBatchException(log + ": no batch starts at offset " + at.baseOffset());
        }
        try {
            return slice.readHead(RecordBatchDescriptor.HEADER_BYTES);   // the check needs its base offset and CRC
        } catch (IOException e) {
            throw new PlacedBatchException(log + ": reading the batch at " + at.baseOffset() + " failed", e);
        }
    }

    /** The placed batch as the log holds it (base offset and epoch stamped), for a follower behind Raft's cache. */
    ByteBuffer read(AppendAt at) {
        LogSlice slice = log.read(at.baseOffset(), at.sizeBytes(), at.lastOffset() + 1);
        if (slice.sizeBytes() != at.sizeBytes() || slice.firstOffset() != at.baseOffset()) {
            throw new PlacedBatchException(log + ": the batch placed at " + at.baseOffset() + " (" + at.sizeBytes()
                    + " bytes) is not in the log (found " + slice + ")");
        }
        try {
            return slice.readBytes();
        } catch (IOException e) {
            throw new PlacedBatchException(log + ": reading the batch at " + at.baseOffset() + " failed", e);
        }
    }
}
