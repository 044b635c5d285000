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

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    private RecordBatchDescriptor() {
    }
}
