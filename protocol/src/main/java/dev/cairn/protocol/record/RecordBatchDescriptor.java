package dev.cairn.protocol.record;

/**
 * Layout of a RecordBatch v2 (magic 2) header, as every Kafka client and broker writes it:
 *
 * <pre>
 *  0                   8          12                     16    17          21           23
 *  +-------------------+----------+----------------------+-----+-----------+------------+
 *  | baseOffset i64    | length   | partitionLeaderEpoch |magic| crc u32   | attributes |
 *  +-------------------+----------+----------------------+-----+-----------+------------+
 *  23                27               35              43           51           53
 *  +-----------------+----------------+---------------+------------+------------+
 *  | lastOffsetDelta | baseTimestamp  | maxTimestamp  | producerId | prodEpoch  |
 *  +-----------------+----------------+---------------+------------+------------+
 *  53             57             61
 *  +--------------+--------------+---------------------------------------------+
 *  | baseSequence | recordsCount | records (or one compressed blob)            |
 *  +--------------+--------------+---------------------------------------------+
 * </pre>
 *
 * {@code length} counts the bytes after itself, so a batch occupies {@code length + 12} bytes. The CRC is
 * CRC-32C over bytes 21 to the end (attributes through the last record); baseOffset, length,
 * partitionLeaderEpoch and magic are outside it, which is what lets a broker assign offsets and stamp the
 * leader epoch without recomputing it.
 *
 * <p>Each record in the records section (or in the decompressed blob, when bits 0-2 of the attributes name a
 * codec) is laid out as below; "varint" is a zig-zag signed varint and "varlong" a zig-zag signed varlong:
 *
 * <pre>
 *  length varint | attributes i8 | timestampDelta varlong | offsetDelta varint |
 *  keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
 *  headerCount varint | headerCount x (headerKeyLength varint (never -1) | headerKey |
 *                                      headerValueLength varint (-1 = null) | headerValue)
 * </pre>
 *
 * {@code length} counts the bytes after itself. A record's offset is {@code baseOffset + offsetDelta}; its
 * timestamp is {@code baseTimestamp + timestampDelta}, except in a LogAppendTime batch where every record takes
 * the batch's {@code maxTimestamp}.
 */
public final class RecordBatchDescriptor {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** Size of the header, and so of the smallest possible batch. */
    public static final int HEADER_BYTES = RECORDS_OFFSET;
    /** Bytes before and including the length field; {@code length} counts what follows. */
    public static final int LOG_OVERHEAD_BYTES = LENGTH_OFFSET + 4;
    /** The smallest legal value of the length field. */
    public static final int LENGTH_MIN = HEADER_BYTES - LOG_OVERHEAD_BYTES;

    public static final byte MAGIC_V2 = 2;

    public static final int COMPRESSION_CODEC_MASK = 0x07;
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_MASK = 0x10;
    public static final int CONTROL_MASK = 0x20;
    public static final int DELETE_HORIZON_MASK = 0x40;

    /** A record timestamp of -1 means "none"; Kafka skips the timestamp window check for such records. */
    public static final long NO_TIMESTAMP = -1L;
    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    /** The smallest record: a one-byte length, then six one-byte fields (null key and value, no headers). */
    public static final int RECORD_BYTES_MIN = 7;
    /** The smallest header: one-byte key length (an empty key) and one-byte value length. */
    public static final int RECORD_HEADER_BYTES_MIN = 2;

    private RecordBatchDescriptor() {
    }
}
