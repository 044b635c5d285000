package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.HEADER_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_V2;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_PARTITION_LEADER_EPOCH;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_PRODUCER_EPOCH;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_PRODUCER_ID;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_SEQUENCE;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_TIMESTAMP;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_OFFSET;

import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.wire.Varints;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Builds one RecordBatch v2 on a producer: CreateTime timestamps, optional producer id, epoch and base sequence,
 * any of the five codecs. {@link #build()} returns the complete batch with baseOffset 0, partitionLeaderEpoch -1,
 * lastOffsetDelta, maxTimestamp and the CRC filled in, ready to go into a Produce request.
 *
 * <pre>
 *   RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.LZ4).producerState(pid, epoch, seq);
 *   while (more &amp;&amp; builder.hasRoomFor(nowMs, key, value, headers, batchBytesMax)) {
 *       builder.append(nowMs, key, value, headers);
 *   }
 *   ByteBuffer batch = builder.build();
 * </pre>
 *
 * <p>Records are encoded as they are appended into an uncompressed buffer; {@link #build()} compresses that
 * once. The size estimate used by {@link #hasRoomFor} is the exact uncompressed size scaled by an estimated
 * compression ratio (1.0 unless the caller knows better, as Kafka's producer learns per topic): it is an
 * estimate, and an incompressible payload may come out a few bytes larger. Not thread-safe.
 */
public final class RecordBatchBuilder {
    /** offsetDelta is an int, and lastOffsetDelta + 1 must be a positive count. */
    public static final int RECORDS_COUNT_MAX = Integer.MAX_VALUE;
    /** The largest batch Java can hold in one ByteBuffer, leaving room for the array header. */
    public static final int BATCH_BYTES_MAX = Integer.MAX_VALUE - 8;
    /** Encoded records start in a buffer this big, unless the caller sizes it, and double as needed. */
    private static final int INITIAL_RECORDS_BYTES = 1024;

    private final CompressionType compressionType;
    private long producerId = NO_PRODUCER_ID;
    private short producerEpoch = NO_PRODUCER_EPOCH;
    private int baseSequence = NO_SEQUENCE;
    private double estimatedCompressionRatio = 1.0;
    private ByteBuffer records;
    private int recordsCount;
    private long baseTimestamp = NO_TIMESTAMP;
    private long maxTimestamp = NO_TIMESTAMP;

    public RecordBatchBuilder(CompressionType compressionType) {
        this(compressionType, INITIAL_RECORDS_BYTES);
    }

    /**
     * A builder whose records buffer starts at {@code initialRecordsBytes}: a producer that fills batches up to
     * batch.size sizes it so, and the buffer is not copied while it fills.
     */
    public RecordBatchBuilder(CompressionType compressionType, int initialRecordsBytes) {
        if (initialRecordsBytes < 0 || initialRecordsBytes > BATCH_BYTES_MAX - HEADER_BYTES) {
            throw new IllegalArgumentException("initial records bytes " + initialRecordsBytes + " outside [0, "
                    + (BATCH_BYTES_MAX - HEADER_BYTES) + "]");
        }
        this.compressionType = compressionType;
        this.records = ByteBuffer.allocate(initialRecordsBytes);
    }

    /** Marks the batch as from an idempotent producer; by default it carries no producer id (-1, -1, -1). */
    public RecordBatchBuilder producerState(long producerId, short producerEpoch, int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    /** Compressed size over uncompressed size, used only by the estimates; must be positive. */
    public RecordBatchBuilder estimatedCompressionRatio(double ratio) {
        if (!(ratio > 0)) {
            throw new IllegalArgumentException("estimated compression ratio " + ratio + " must be > 0");
        }
        this.estimatedCompressionRatio = ratio;
        return this;
    }

    public CompressionType compressionType() {
        return compressionType;
    }

    public int recordsCount() {
        return recordsCount;
    }

    /** Appends a record; key and value may be null, headers may be empty. */
    public RecordBatchBuilder append(long timestampMs, byte[] key, byte[] value, RecordHeader... headers) {
        return append(timestampMs, wrapNullable(key), wrapNullable(value), headers);
    }

    /** Appends a record from buffers (position to limit, not consumed); key and value may be null. */
    public RecordBatchBuilder append(long timestampMs, ByteBuffer key, ByteBuffer value, RecordHeader... headers) {
        if (recordsCount == RECORDS_COUNT_MAX) {
            throw new IllegalStateException("a batch holds at most " + RECORDS_COUNT_MAX + " records");
        }
        if (recordsCount == 0) {
            baseTimestamp = timestampMs;
        }
        long timestampDelta = Math.subtractExact(timestampMs, baseTimestamp);
        byte[][] headerKeys = encodeHeaderKeys(headers);
        int bodyBytes = recordBodyBytes(timestampDelta, recordsCount, key, value, headers, headerKeys);
        ensureCapacity(Varints.sizeOfVarint(bodyBytes) + bodyBytes);
        Varints.writeVarint(records, bodyBytes);
        records.put((byte) 0);
        Varints.writeVarlong(records, timestampDelta);
        Varints.writeVarint(records, recordsCount);
        writeNullable(key);
        writeNullable(value);
        Varints.writeVarint(records, headers.length);
        for (int i = 0; i < headers.length; i++) {
            Varints.writeVarint(records, headerKeys[i].length);
            records.put(headerKeys[i]);
            writeNullable(wrapNullable(headers[i].value()));
        }
        recordsCount++;
        maxTimestamp = Math.max(maxTimestamp, timestampMs);
        return this;
    }

    /** The exact size of the batch if it were built uncompressed now. */
    public int uncompressedSizeInBytes() {
        return HEADER_BYTES + records.position();
    }

    /** The estimated size of the built batch: exact for none, scaled by the compression ratio otherwise. */
    public int estimatedSizeInBytes() {
        return estimateBytes(records.position());
    }

    /**
     * True when the record would fit within {@code batchBytesMax} by the estimate. An empty builder always has
     * room, as in Kafka, so one record larger than the limit still makes a (single-record) batch and the broker
     * decides whether it is too large.
     */
    public boolean hasRoomFor(long timestampMs, byte[] key, byte[] value, RecordHeader[] headers, int batchBytesMax) {
        return hasRoomFor(timestampMs, wrapNullable(key), wrapNullable(value), headers, batchBytesMax);
    }

    public boolean hasRoomFor(long timestampMs, ByteBuffer key, ByteBuffer value, RecordHeader[] headers,
                              int batchBytesMax) {
        if (recordsCount == 0) {
            return true;
        }
        long timestampDelta = timestampMs - baseTimestamp;
        int bodyBytes = recordBodyBytes(timestampDelta, recordsCount, key, value, headers,
                encodeHeaderKeys(headers));
        long recordsBytes = (long) records.position() + Varints.sizeOfVarint(bodyBytes) + bodyBytes;
        return recordsBytes <= BATCH_BYTES_MAX && estimateBytes(recordsBytes) <= batchBytesMax;
    }

    /** Builds the complete batch into a new heap buffer positioned at 0; the builder can keep appending. */
    public ByteBuffer build() {
        if (recordsCount == 0) {
            throw new IllegalStateException("a record batch needs at least one record");
        }
        ByteBuffer uncompressed = records.duplicate().flip();
        ByteBuffer payload = compressionType == CompressionType.NONE
                ? uncompressed : Compression.compress(compressionType, uncompressed);
        long batchBytes = (long) HEADER_BYTES + payload.remaining();
        if (batchBytes > BATCH_BYTES_MAX) {
            throw new IllegalStateException("batch of " + batchBytes + " bytes exceeds " + BATCH_BYTES_MAX);
        }
        ByteBuffer batch = ByteBuffer.allocate((int) batchBytes);
        batch.putLong(BASE_OFFSET_OFFSET, 0L);
        batch.putInt(LENGTH_OFFSET, (int) batchBytes - LOG_OVERHEAD_BYTES);
        batch.putInt(PARTITION_LEADER_EPOCH_OFFSET, NO_PARTITION_LEADER_EPOCH);
        batch.put(MAGIC_OFFSET, MAGIC_V2);
        batch.putShort(ATTRIBUTES_OFFSET, (short) compressionType.id());
        batch.putInt(LAST_OFFSET_DELTA_OFFSET, recordsCount - 1);
        batch.putLong(BASE_TIMESTAMP_OFFSET, baseTimestamp);
        batch.putLong(MAX_TIMESTAMP_OFFSET, maxTimestamp);
        batch.putLong(PRODUCER_ID_OFFSET, producerId);
        batch.putShort(PRODUCER_EPOCH_OFFSET, producerEpoch);
        batch.putInt(BASE_SEQUENCE_OFFSET, baseSequence);
        batch.putInt(RECORDS_COUNT_OFFSET, recordsCount);
        batch.position(RECORDS_OFFSET);
        batch.put(payload);
        batch.flip();
        RecordBatch built = RecordBatch.of(batch);
        built.writeChecksum();
        // Paired check (style.md point 7): what was written must read back; -ea runs it in tests.
        assert built.isChecksumValid() && built.lastOffsetDelta() == recordsCount - 1 : "built an invalid batch";
        return batch;
    }

    /** The encoded size of one record including its length prefix, for callers sizing their own buffers. */
    public static int recordSizeInBytes(long timestampDelta, int offsetDelta, ByteBuffer key, ByteBuffer value,
                                        RecordHeader... headers) {
        int bodyBytes = recordBodyBytes(timestampDelta, offsetDelta, key, value, headers, encodeHeaderKeys(headers));
        return Varints.sizeOfVarint(bodyBytes) + bodyBytes;
    }

    private int estimateBytes(long recordsBytes) {
        if (compressionType == CompressionType.NONE) {
            return (int) Math.min(BATCH_BYTES_MAX, HEADER_BYTES + recordsBytes);
        }
        double estimate = HEADER_BYTES + Math.ceil(recordsBytes * estimatedCompressionRatio);
        return (int) Math.min(BATCH_BYTES_MAX, estimate);
    }

    private static int recordBodyBytes(long timestampDelta, int offsetDelta, ByteBuffer key, ByteBuffer value,
                                       RecordHeader[] headers, byte[][] headerKeys) {
        long bytes = 1 + Varints.sizeOfVarlong(timestampDelta) + Varints.sizeOfVarint(offsetDelta)
                + nullableBytes(key) + nullableBytes(value) + Varints.sizeOfVarint(headers.length);
        for (int i = 0; i < headers.length; i++) {
            bytes += Varints.sizeOfVarint(headerKeys[i].length) + headerKeys[i].length;
            bytes += nullableBytes(wrapNullable(headers[i].value()));
        }
        if (bytes > BATCH_BYTES_MAX - HEADER_BYTES) {
            throw new IllegalArgumentException("record of " + bytes + " bytes cannot fit in a batch");
        }
        return (int) bytes;
    }

    private static long nullableBytes(ByteBuffer field) {
        if (field == null) {
            return Varints.sizeOfVarint(-1);
        }
        return Varints.sizeOfVarint(field.remaining()) + (long) field.remaining();
    }

    private void writeNullable(ByteBuffer field) {
        if (field == null) {
            Varints.writeVarint(records, -1);
            return;
        }
        Varints.writeVarint(records, field.remaining());
        records.put(field.duplicate());
    }

    private static byte[][] encodeHeaderKeys(RecordHeader[] headers) {
        byte[][] keys = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            keys[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
        }
        return keys;
    }

    private static ByteBuffer wrapNullable(byte[] bytes) {
        return bytes == null ? null : ByteBuffer.wrap(bytes);
    }

    private void ensureCapacity(int bytes) {
        if (records.remaining() >= bytes) {
            return;
        }
        long needed = (long) records.position() + bytes;
        if (needed > BATCH_BYTES_MAX - HEADER_BYTES) {
            throw new IllegalStateException("records of " + needed + " bytes cannot fit in a batch");
        }
        long capacity = Math.min(BATCH_BYTES_MAX - HEADER_BYTES, Math.max(needed, 2L * records.capacity()));
        ByteBuffer grown = ByteBuffer.allocate((int) capacity);
        grown.put(records.flip());
        records = grown;
    }
}
