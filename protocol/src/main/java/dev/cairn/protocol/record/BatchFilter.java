package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.DELETE_HORIZON_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_OFFSET;

import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.wire.Varints;
import java.nio.ByteBuffer;

/**
 * Keeps some records of a batch and drops the others, for log compaction. The batch keeps its place in the log:
 * its base offset, last offset delta, leader epoch, producer fields and timestamps stay as they were, and each kept
 * record keeps its offset and timestamp deltas, so offsets never change. A batch that loses every record stays as
 * an empty batch (no records, no compression) over the same offsets, as Kafka keeps empty batches, so the offsets
 * of a log stay dense and each batch boundary stays where it was. Only the records section, the record count, the
 * codec bits of an emptied batch, the length and the CRC change. Deterministic: the same batch and decisions give
 * the same bytes, and a batch that keeps every record is returned as it is, not re-encoded.
 *
 * <p>{@link #withDeleteHorizon} marks a batch the way Kafka's cleaner marks one whose tombstones or transaction
 * marker it may remove later (KIP-534).
 */
public final class BatchFilter {
    private BatchFilter() {
    }

    /** Whether the cursor's current record stays. */
    @FunctionalInterface
    public interface RecordPredicate {
        boolean keep(RecordCursor record);
    }

    /**
     * The batch with only the records {@code keep} accepts: the batch itself (a slice, not copied) when it accepts
     * all, an empty batch when it accepts none, else a new batch compressed with the batch's own codec. Control
     * batches are returned as they are, never filtered.
     *
     * @param cursor a cursor to reuse
     * @param decompressedBytesMax how far the records may inflate
     */
    public static ByteBuffer retain(RecordBatch batch, RecordCursor cursor, int decompressedBytesMax,
            RecordPredicate keep) {
        if (batch.isControl() || batch.recordsCount() == 0) {
            return batch.slice();
        }
        cursor.reset(batch, decompressedBytesMax);
        ByteBuffer records = cursor.recordsBuffer();
        // Allocated at the first dropped record; until then every record stays and nothing is copied.
        ByteBuffer kept = null;
        int keptCount = 0;
        int sectionStart = -1;
        while (cursor.next()) {
            int start = cursor.recordStart();
            if (sectionStart < 0) {
                sectionStart = start;
            }
            if (keep.keep(cursor)) {
                keptCount++;
                if (kept != null) {
                    kept.put(range(records, start, cursor.recordSizeInBytes()));
                }
            } else if (kept == null) {
                kept = ByteBuffer.allocate(records.limit() - sectionStart);
                kept.put(range(records, sectionStart, start - sectionStart));
            }
        }
        if (keptCount == batch.recordsCount()) {
            return batch.slice();
        }
        if (keptCount == 0) {
            return emptied(batch);
        }
        kept.flip();
        CompressionType codec = batch.compressionType();
        ByteBuffer body = codec == CompressionType.NONE ? kept : Compression.compress(codec, kept);
        ByteBuffer out = header(batch, RECORDS_OFFSET + body.remaining());
        out.put(body.duplicate()).flip();
        out.putInt(LENGTH_OFFSET, out.remaining() - LOG_OVERHEAD_BYTES);
        out.putInt(RECORDS_COUNT_OFFSET, keptCount);
        new RecordBatch().wrap(out, 0).writeChecksum();
        return out;
    }

    /** The batch without any record: same offsets, epoch, producer fields and timestamps, no compression. */
    public static ByteBuffer emptied(RecordBatch batch) {
        ByteBuffer out = header(batch, RECORDS_OFFSET);
        out.flip();
        out.putInt(LENGTH_OFFSET, RECORDS_OFFSET - LOG_OVERHEAD_BYTES);
        out.putInt(RECORDS_COUNT_OFFSET, 0);
        short attributes = out.getShort(ATTRIBUTES_OFFSET);
        out.putShort(ATTRIBUTES_OFFSET, (short) ((attributes & ~COMPRESSION_CODEC_MASK)
                | CompressionType.NONE.id()));
        new RecordBatch().wrap(out, 0).writeChecksum();
        return out;
    }

    /**
     * The batch with its delete horizon set (KIP-534), as Kafka's cleaner writes it: the delete-horizon attribute set,
     * the base timestamp holding {@code deleteHorizonMs}, and each record's timestamp delta taken against it, so that
     * every record keeps its timestamp. Offsets, codec, producer fields, leader epoch and maxTimestamp stay. A batch
     * whose horizon is set already, or that holds no record, is returned as it is.
     *
     * @param cursor a cursor to reuse
     * @param decompressedBytesMax how far the records may inflate
     */
    public static ByteBuffer withDeleteHorizon(RecordBatch batch, RecordCursor cursor, int decompressedBytesMax,
            long deleteHorizonMs) {
        if (batch.hasDeleteHorizon() || batch.recordsCount() == 0) {
            return batch.slice();
        }
        cursor.reset(batch, decompressedBytesMax);
        ByteBuffer records = cursor.recordsBuffer();
        // A record's timestamp delta grows by at most VARLONG_BYTES_MAX, and its length prefix by at most one byte.
        ByteBuffer rebased = ByteBuffer.allocate(records.limit()
                + batch.recordsCount() * (Varints.VARLONG_BYTES_MAX + 1));
        while (cursor.next()) {
            ByteBuffer record = range(records, cursor.recordStart(), cursor.recordSizeInBytes());
            int bodyBytes = Varints.readVarint(record);
            byte attributes = record.get();
            long oldDelta = Varints.readVarlong(record);
            long newDelta = Math.subtractExact(Math.addExact(batch.baseTimestamp(), oldDelta), deleteHorizonMs);
            Varints.writeVarint(rebased, bodyBytes - Varints.sizeOfVarlong(oldDelta) + Varints.sizeOfVarlong(newDelta));
            rebased.put(attributes);
            Varints.writeVarlong(rebased, newDelta);
            rebased.put(record);
        }
        rebased.flip();
        CompressionType codec = batch.compressionType();
        ByteBuffer body = codec == CompressionType.NONE ? rebased : Compression.compress(codec, rebased);
        ByteBuffer out = header(batch, RECORDS_OFFSET + body.remaining());
        out.put(body.duplicate()).flip();
        out.putInt(LENGTH_OFFSET, out.remaining() - LOG_OVERHEAD_BYTES);
        out.putShort(ATTRIBUTES_OFFSET, (short) (out.getShort(ATTRIBUTES_OFFSET) | DELETE_HORIZON_MASK));
        out.putLong(BASE_TIMESTAMP_OFFSET, deleteHorizonMs);
        new RecordBatch().wrap(out, 0).writeChecksum();
        return out;
    }

    private static ByteBuffer header(RecordBatch batch, int capacity) {
        ByteBuffer out = ByteBuffer.allocate(capacity);
        ByteBuffer header = batch.buffer().duplicate();
        header.limit(batch.start() + RECORDS_OFFSET).position(batch.start());
        return out.put(header);
    }

    private static ByteBuffer range(ByteBuffer buffer, int position, int length) {
        ByteBuffer range = buffer.duplicate();
        range.limit(position + length).position(position);
        return range;
    }
}
