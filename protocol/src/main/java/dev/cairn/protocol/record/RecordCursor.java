package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORD_HEADER_BYTES_MIN;

import dev.cairn.protocol.record.compression.CodecUnavailableException;
import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.record.compression.DecompressedSizeExceededException;
import dev.cairn.protocol.wire.DecodeException;
import dev.cairn.protocol.wire.Varints;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A reusable cursor over the records of one RecordBatch v2; it is itself the flyweight for the current record.
 * Record layout: {@link RecordBatchDescriptor}.
 *
 * <pre>
 *   RecordCursor cursor = new RecordCursor();
 *   cursor.reset(batch);
 *   while (cursor.next()) {
 *       long offset = cursor.offset();
 *       ByteBuffer value = cursor.value(); // null for a null value
 *   }
 * </pre>
 *
 * <p>An uncompressed batch is read in place: keys, values and header fields are slices of the batch's buffer
 * (or absolute positions within {@link #recordsBuffer()}), nothing is copied. A compressed batch is inflated once
 * by {@link #reset}, bounded by {@code decompressedBytesMax}, and the slices point into that copy.
 *
 * <p>Every length is checked against the bytes that remain in its record, and every record against the bytes
 * that remain in the batch; the cursor reads exactly {@code recordsCount} records and then requires the data to
 * be used up. Malformed input raises {@link DecodeException} and nothing else. The cursor does not check the
 * CRC; callers that have not done so should call {@link RecordBatch#isChecksumValid()} first.
 *
 * <p>Not thread-safe. The slices it returns stay valid until the next {@link #reset}; the values returned by
 * the scalar getters describe the current record only. After an exception the cursor must be reset before it
 * is used again.
 */
public final class RecordCursor {
    /** Inflated bytes allowed per batch when the caller names no limit; see {@link BatchValidationConfig}. */
    public static final int DEFAULT_DECOMPRESSED_BYTES_MAX = BatchValidationConfig.DEFAULT_DECOMPRESSED_BYTES_MAX;

    private static final int HEADER_SLOTS = 4;
    private static final int HEADER_KEY_OFFSET_SLOT = 0;
    private static final int HEADER_KEY_SIZE_SLOT = 1;
    private static final int HEADER_VALUE_OFFSET_SLOT = 2;
    private static final int HEADER_VALUE_SIZE_SLOT = 3;
    private static final int HEADER_SLOTS_INITIAL = 8 * HEADER_SLOTS;
    /** The largest int[] the JVM reliably allocates. */
    private static final int HEADER_SLOTS_MAX = Integer.MAX_VALUE - 8;

    private ByteBuffer records;
    private long baseOffset;
    private long baseTimestamp;
    private long maxTimestamp;
    private boolean logAppendTime;
    private int recordsCount;
    private int recordIndex = -1;

    private int recordStart;
    private int recordSizeInBytes;
    private byte attributes;
    private long timestampDelta;
    private int offsetDelta;
    private int keyOffset;
    private int keySize;
    private int valueOffset;
    private int valueSize;
    private int headerCount;
    private int[] headerSlots = new int[HEADER_SLOTS_INITIAL];

    /** Positions the cursor before the first record of {@code batch}, with the default decompression limit. */
    public RecordCursor reset(RecordBatch batch) {
        return reset(batch, DEFAULT_DECOMPRESSED_BYTES_MAX);
    }

    /**
     * Positions the cursor before the first record of {@code batch}; a compressed batch is decompressed here.
     *
     * @throws DecodeException when the header is inconsistent or the compressed data is corrupt
     * @throws DecompressedSizeExceededException when the records inflate past {@code decompressedBytesMax}
     * @throws CodecUnavailableException when the batch's codec library is not on the classpath
     */
    public RecordCursor reset(RecordBatch batch, int decompressedBytesMax) {
        int count = batch.recordsCount();
        if (count < 0) {
            throw DecodeException.format("negative records count %d", count);
        }
        CompressionType compressionType = batch.compressionType();
        ByteBuffer section = batch.buffer().duplicate();
        section.limit(batch.start() + batch.sizeInBytes()).position(batch.start() + RECORDS_OFFSET);
        if (compressionType == CompressionType.NONE) {
            this.records = section;
        } else {
            this.records = Compression.decompress(compressionType, section, decompressedBytesMax);
        }
        this.baseOffset = batch.baseOffset();
        this.baseTimestamp = batch.baseTimestamp();
        this.maxTimestamp = batch.maxTimestamp();
        this.logAppendTime = batch.isLogAppendTime();
        this.recordsCount = count;
        this.recordIndex = -1;
        this.headerCount = 0;
        return this;
    }

    /**
     * Advances to the next record; returns false after the last one. Reaching the end checks that no bytes
     * follow the last record, as Kafka does ("records still remaining").
     */
    public boolean next() {
        if (records == null) {
            throw new IllegalStateException("reset the cursor onto a batch first");
        }
        // Written as recordsCount - 1 (recordsCount >= 0) so that nothing overflows at Integer.MAX_VALUE.
        if (recordIndex >= recordsCount - 1) {
            if (recordIndex == recordsCount - 1 && records.hasRemaining()) {
                recordIndex = recordsCount;
                throw DecodeException.format("%d bytes follow the last of %d records", records.remaining(),
                        recordsCount);
            }
            recordIndex = recordsCount;
            return false;
        }
        recordIndex++;
        readRecord();
        return true;
    }

    private void readRecord() {
        recordStart = records.position();
        int bodyBytes = Varints.readVarint(records);
        if (bodyBytes < 0 || bodyBytes > records.remaining()) {
            throw DecodeException.format("record %d length %d outside [0, %d]", recordIndex, bodyBytes,
                    records.remaining());
        }
        int bodyEnd = records.position() + bodyBytes;
        int batchEnd = records.limit();
        // Bounding the view by the record's own length makes every read below fail inside this record.
        records.limit(bodyEnd);
        try {
            requireRemaining(1, "attributes");
            attributes = records.get();
            timestampDelta = Varints.readVarlong(records);
            offsetDelta = Varints.readVarint(records);
            keySize = Varints.readVarint(records);
            keyOffset = skipNullable(keySize, "key");
            valueSize = Varints.readVarint(records);
            valueOffset = skipNullable(valueSize, "value");
            readHeaders();
            if (records.hasRemaining()) {
                throw DecodeException.format("record %d declares %d bytes but its fields use %d", recordIndex,
                        bodyBytes, bodyBytes - records.remaining());
            }
        } finally {
            records.limit(batchEnd);
        }
        records.position(bodyEnd);
        recordSizeInBytes = bodyEnd - recordStart;
    }

    private void readHeaders() {
        int count = Varints.readVarint(records);
        if (count < 0 || count > records.remaining() / RECORD_HEADER_BYTES_MIN) {
            throw DecodeException.format("record %d header count %d outside [0, %d]", recordIndex, count,
                    records.remaining() / RECORD_HEADER_BYTES_MIN);
        }
        long slotsNeeded = (long) count * HEADER_SLOTS;
        if (slotsNeeded > HEADER_SLOTS_MAX) {
            throw DecodeException.format("record %d has %d headers, more than an array can index", recordIndex,
                    count);
        }
        if (slotsNeeded > headerSlots.length) {
            // count is bounded by the record's bytes above, so this allocation is bounded by the input size.
            long grown = Math.max(slotsNeeded, 2L * headerSlots.length);
            headerSlots = new int[(int) Math.min(HEADER_SLOTS_MAX, grown)];
        }
        for (int i = 0; i < count; i++) {
            int base = i * HEADER_SLOTS;
            int headerKeySize = Varints.readVarint(records);
            if (headerKeySize < 0) {
                throw DecodeException.format("record %d header %d has key length %d", recordIndex, i,
                        headerKeySize);
            }
            headerSlots[base + HEADER_KEY_SIZE_SLOT] = headerKeySize;
            headerSlots[base + HEADER_KEY_OFFSET_SLOT] = skipNullable(headerKeySize, "header key");
            int headerValueSize = Varints.readVarint(records);
            headerSlots[base + HEADER_VALUE_SIZE_SLOT] = headerValueSize;
            headerSlots[base + HEADER_VALUE_OFFSET_SLOT] = skipNullable(headerValueSize, "header value");
        }
        headerCount = count;
    }

    /** Skips a length-prefixed field (the length already read); returns its position, or -1 when null. */
    private int skipNullable(int size, String field) {
        if (size == -1) {
            return -1;
        }
        if (size < -1) {
            throw DecodeException.format("record %d %s length %d", recordIndex, field, size);
        }
        requireRemaining(size, field);
        int position = records.position();
        records.position(position + size);
        return position;
    }

    private void requireRemaining(int bytes, String field) {
        if (records.remaining() < bytes) {
            throw DecodeException.format("record %d %s needs %d bytes, %d left in the record", recordIndex,
                    field, bytes, records.remaining());
        }
    }

    /** The buffer the offsets returned by {@link #keyOffset()} and friends index into. */
    public ByteBuffer recordsBuffer() {
        return records;
    }

    /** The position of the current record in the batch, from 0. */
    public int recordIndex() {
        return recordIndex;
    }

    public int recordsCount() {
        return recordsCount;
    }

    /** Where the current record (its length prefix) starts in {@link #recordsBuffer()}. */
    public int recordStart() {
        return recordStart;
    }

    /** The current record's size, including its length prefix. */
    public int recordSizeInBytes() {
        return recordSizeInBytes;
    }

    public byte attributes() {
        return attributes;
    }

    public long timestampDelta() {
        return timestampDelta;
    }

    public int offsetDelta() {
        return offsetDelta;
    }

    /** The absolute offset: the batch's baseOffset plus this record's offsetDelta. */
    public long offset() {
        return baseOffset + offsetDelta;
    }

    /** The record's timestamp: maxTimestamp in a LogAppendTime batch, else baseTimestamp + timestampDelta. */
    public long timestamp() {
        return logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    }

    /** The key length, or -1 for a null key. */
    public int keySize() {
        return keySize;
    }

    /** The key's position in {@link #recordsBuffer()}, or -1 for a null key. */
    public int keyOffset() {
        return keyOffset;
    }

    /** A read-only slice of the key (no copy), or null for a null key. */
    public ByteBuffer key() {
        return slice(keyOffset, keySize);
    }

    public int valueSize() {
        return valueSize;
    }

    public int valueOffset() {
        return valueOffset;
    }

    /** A read-only slice of the value (no copy), or null for a null value. */
    public ByteBuffer value() {
        return slice(valueOffset, valueSize);
    }

    public int headerCount() {
        return headerCount;
    }

    public int headerKeySize(int headerIndex) {
        return headerSlot(headerIndex, HEADER_KEY_SIZE_SLOT);
    }

    public int headerKeyOffset(int headerIndex) {
        return headerSlot(headerIndex, HEADER_KEY_OFFSET_SLOT);
    }

    /** A read-only slice of the header's key (never null; Kafka forbids null header keys). */
    public ByteBuffer headerKey(int headerIndex) {
        return slice(headerKeyOffset(headerIndex), headerKeySize(headerIndex));
    }

    /** The header key decoded as UTF-8, which is how Kafka clients write it. */
    public String headerKeyString(int headerIndex) {
        ByteBuffer key = headerKey(headerIndex);
        return StandardCharsets.UTF_8.decode(key).toString();
    }

    /** The header value length, or -1 for a null value. */
    public int headerValueSize(int headerIndex) {
        return headerSlot(headerIndex, HEADER_VALUE_SIZE_SLOT);
    }

    public int headerValueOffset(int headerIndex) {
        return headerSlot(headerIndex, HEADER_VALUE_OFFSET_SLOT);
    }

    /** A read-only slice of the header's value (no copy), or null for a null value. */
    public ByteBuffer headerValue(int headerIndex) {
        return slice(headerValueOffset(headerIndex), headerValueSize(headerIndex));
    }

    private int headerSlot(int headerIndex, int slot) {
        if (headerIndex < 0 || headerIndex >= headerCount) {
            throw new IndexOutOfBoundsException("header " + headerIndex + " of " + headerCount);
        }
        return headerSlots[headerIndex * HEADER_SLOTS + slot];
    }

    private ByteBuffer slice(int offset, int size) {
        if (size < 0) {
            return null;
        }
        ByteBuffer view = records.asReadOnlyBuffer();
        view.limit(offset + size).position(offset);
        return view.slice();
    }
}
