package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.CONTROL_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.CRC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.DELETE_HORIZON_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.HEADER_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.TIMESTAMP_TYPE_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.TRANSACTIONAL_MASK;

import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A flyweight over one RecordBatch v2 in a {@link ByteBuffer}: reads header fields in place with absolute
 * gets, checks the CRC-32C, and rewrites the fields that lie outside the CRC (base offset, partition leader
 * epoch). It never moves the buffer's position, and the header getters allocate nothing. Layout:
 * {@link RecordBatchDescriptor}; records: {@link #records()} and {@link RecordCursor}.
 *
 * <p>{@link #wrap} checks only that the header fits and that the length field is sane against the bytes
 * available; call {@link #isChecksumValid()} before trusting anything under the CRC. The two in-place rewrites
 * that touch bytes under the CRC, {@link #setMaxTimestamp} and {@link LogAppendTimeStamper#stamp}, rewrite the
 * checksum too.
 */
public final class RecordBatch {
    private ByteBuffer buffer;
    private int start;

    /** Wraps the batch that starts at {@code start}; the whole batch must lie within the buffer's limit. */
    public RecordBatch wrap(ByteBuffer buffer, int start) {
        int available = buffer.limit() - start;
        if (start < 0 || available < HEADER_BYTES) {
            throw DecodeException.format("record batch header needs %d bytes, %d available", HEADER_BYTES,
                    Math.max(0, available));
        }
        int length = buffer.getInt(start + LENGTH_OFFSET);
        if (length < RecordBatchDescriptor.LENGTH_MIN || length > available - LOG_OVERHEAD_BYTES) {
            throw DecodeException.format("record batch length %d outside [%d, %d]", length,
                    RecordBatchDescriptor.LENGTH_MIN, available - LOG_OVERHEAD_BYTES);
        }
        this.buffer = buffer;
        this.start = start;
        return this;
    }

    public static RecordBatch of(ByteBuffer buffer) {
        return new RecordBatch().wrap(buffer, buffer.position());
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public int start() {
        return start;
    }

    /** The whole batch: the length field plus the 12 bytes before it. */
    public int sizeInBytes() {
        return buffer.getInt(start + LENGTH_OFFSET) + LOG_OVERHEAD_BYTES;
    }

    public long baseOffset() {
        return buffer.getLong(start + BASE_OFFSET_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    public int partitionLeaderEpoch() {
        return buffer.getInt(start + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return buffer.get(start + MAGIC_OFFSET);
    }

    public long checksum() {
        return Integer.toUnsignedLong(buffer.getInt(start + CRC_OFFSET));
    }

    public short attributes() {
        return buffer.getShort(start + ATTRIBUTES_OFFSET);
    }

    public int compressionCodecId() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    /** The codec named by the attributes; an unassigned id (5 to 7) raises DecodeException. */
    public CompressionType compressionType() {
        return CompressionType.forId(compressionCodecId());
    }

    public boolean isLogAppendTime() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes() & CONTROL_MASK) != 0;
    }

    /** Whether the base timestamp holds a delete horizon (KIP-534), set by a log cleaner. */
    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_MASK) != 0;
    }

    /**
     * The time after which a log cleaner may remove this batch's tombstones or transaction marker (KIP-534: the base
     * timestamp, when the delete-horizon attribute is set), or {@link RecordBatchDescriptor#NO_TIMESTAMP}.
     */
    public long deleteHorizonMs() {
        return hasDeleteHorizon() ? baseTimestamp() : RecordBatchDescriptor.NO_TIMESTAMP;
    }

    public int lastOffsetDelta() {
        return buffer.getInt(start + LAST_OFFSET_DELTA_OFFSET);
    }

    public long baseTimestamp() {
        return buffer.getLong(start + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buffer.getLong(start + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return buffer.getLong(start + PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return buffer.getShort(start + PRODUCER_EPOCH_OFFSET);
    }

    /** True when the batch carries a producer id, i.e. it comes from an idempotent or transactional producer. */
    public boolean hasProducerId() {
        return producerId() != RecordBatchDescriptor.NO_PRODUCER_ID;
    }

    public int baseSequence() {
        return buffer.getInt(start + BASE_SEQUENCE_OFFSET);
    }

    /** The sequence of the last record, wrapping past Integer.MAX_VALUE to 0 as Kafka does. */
    public int lastSequence() {
        int base = baseSequence();
        if (base < 0) {
            return base;
        }
        long last = (long) base + lastOffsetDelta();
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    public int recordsCount() {
        return buffer.getInt(start + RECORDS_COUNT_OFFSET);
    }

    /** CRC-32C of the bytes under the checksum (attributes through the end of the batch). */
    public long computeChecksum() {
        CRC32C crc = new CRC32C();
        ByteBuffer view = buffer.duplicate();
        view.limit(start + sizeInBytes()).position(start + ATTRIBUTES_OFFSET);
        crc.update(view);
        return crc.getValue();
    }

    public boolean isChecksumValid() {
        return computeChecksum() == checksum();
    }

    /** Writes the CRC-32C of the bytes under the checksum; call after changing anything from attributes on. */
    public void writeChecksum() {
        buffer.putInt(start + CRC_OFFSET, (int) computeChecksum());
    }

    /**
     * Rewrites maxTimestamp and, because it lies under the CRC, the checksum; does nothing when the value is
     * already right, so a batch whose producer computed it correctly is stored byte for byte as received.
     * Kafka's LogValidator does the same for CreateTime topics when the batch's value disagrees with its records.
     */
    public void setMaxTimestamp(long maxTimestampMs) {
        if (maxTimestamp() == maxTimestampMs) {
            return;
        }
        buffer.putLong(start + MAX_TIMESTAMP_OFFSET, maxTimestampMs);
        writeChecksum();
    }

    /**
     * A cursor over this batch's records with the default decompression limit; see {@link RecordCursor}.
     * Allocates a cursor; hot paths should keep one and call {@link RecordCursor#reset(RecordBatch, int)}.
     */
    public RecordCursor records() {
        return new RecordCursor().reset(this);
    }

    /** Assigns offsets: writes baseOffset only; the CRC stays valid because baseOffset lies outside it. */
    public void setBaseOffset(long baseOffset) {
        buffer.putLong(start + BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Assigns offsets by the last one, as Kafka's setLastOffset does: baseOffset = lastOffset - lastOffsetDelta. */
    public void setLastOffset(long lastOffset) {
        setBaseOffset(lastOffset - lastOffsetDelta());
    }

    /** Stamps the leader epoch, which also lies outside the CRC. */
    public void setPartitionLeaderEpoch(int epoch) {
        buffer.putInt(start + PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    /** A slice holding exactly this batch; it shares content with the buffer (writes show through). */
    public ByteBuffer slice() {
        ByteBuffer view = buffer.duplicate();
        view.limit(start + sizeInBytes()).position(start);
        return view.slice();
    }
}
