package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_MIN;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_V2;
import static dev.cairn.protocol.record.RecordBatchDescriptor.NO_TIMESTAMP;

import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.compression.CodecUnavailableException;
import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.record.compression.DecompressedSizeExceededException;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;

/**
 * Validates one partition's records from a Produce request on the leader, before replication, as a pure
 * function: no clock (the caller passes {@code nowMs}), no mutation of the buffer, and every failure a
 * {@link BatchValidationResult} carrying the exact Kafka error code, never an exception.
 *
 * <p>The checks and their order follow Kafka (shared docs kafka-protocol.md A.2): {@code
 * ProduceRequest.validateRecords}, then {@code UnifiedLog.analyzeAndValidateRecords}, then {@code
 * LogValidator.validateBatch} and {@code validateRecord}, then the segment-size check in {@code UnifiedLog.append}:
 * <ol>
 *   <li>no complete batch, magic other than 2, or bytes after the first batch: INVALID_RECORD;
 *       a length field below the v2 minimum: CORRUPT_MESSAGE (Kafka's "Record size is less than minimum");</li>
 *   <li>zstd with Produce below v7: UNSUPPORTED_COMPRESSION_TYPE;</li>
 *   <li>baseOffset other than 0: INVALID_RECORD;</li>
 *   <li>batch larger than {@code messageBytesMax}: MESSAGE_TOO_LARGE;</li>
 *   <li>CRC mismatch: CORRUPT_MESSAGE;</li>
 *   <li>unassigned codec id, or a codec whose library is missing: UNSUPPORTED_COMPRESSION_TYPE;</li>
 *   <li>lastOffsetDelta + 1 not positive, recordsCount not positive, or the two unequal: INVALID_RECORD;</li>
 *   <li>control batch: INVALID_RECORD; producerId set with a negative baseSequence: INVALID_RECORD;</li>
 *   <li>transactional batch: INVALID_TXN_STATE (see below);</li>
 *   <li>records that do not parse: INVALID_RECORD; records inflating past {@code decompressedBytesMax}:
 *       MESSAGE_TOO_LARGE;</li>
 *   <li>per record: offsetDelta other than the record's index, or a missing key on a compacted topic:
 *       INVALID_RECORD; a CreateTime timestamp outside [nowMs - before, nowMs + after], or a LogAppendTime
 *       batch where the topic does not allow one: INVALID_TIMESTAMP (which wins over INVALID_RECORD when both
 *       occur, as in Kafka's {@code processRecordErrors});</li>
 *   <li>batch larger than {@code segmentBytes}: RECORD_LIST_TOO_LARGE.</li>
 * </ol>
 *
 * <p>Decisions where Cairn differs from or goes beyond Kafka:
 * <ul>
 *   <li>Unparseable records give INVALID_RECORD (87), not CORRUPT_MESSAGE, because that is what Kafka does:
 *       its record readers ({@code DefaultRecord.readFrom}, {@code DefaultRecordBatch}'s iterators) throw
 *       {@code org.apache.kafka.common.InvalidRecordException} ("Found invalid record structure", "Incorrect
 *       declared batch size"), and in kafka-clients 4.4 that class is the one {@code Errors.INVALID_RECORD}
 *       maps to (it extends InvalidConfigurationException, not CorruptRecordException; checked with javap, and
 *       ProduceBatchValidatorTest asserts it against kafka-clients). LogValidator itself raises
 *       CorruptRecordException only for v0/v1 inner-record CRC failures. CORRUPT_MESSAGE is left for CRC and
 *       size-field damage,
 *       which a resend can fix (it is retriable), while a resend of a well-checksummed but malformed batch
 *       cannot. Corrupt compressed data, for which Kafka answers UNKNOWN_SERVER_ERROR (an untyped
 *       KafkaException), also gets INVALID_RECORD here.</li>
 *   <li>Transactional batches get INVALID_TXN_STATE (48). Cairn has no transaction coordinator, so no
 *       transaction can be ongoing; Kafka answers exactly this when a transactional batch arrives for a partition
 *       that is not part of an ongoing transaction ({@code UnifiedLog.append}: "Record was not part of an
 *       ongoing transaction"). The code is not retriable, and the Java producer treats it as fatal for the
 *       transaction, which is the truth: a retry cannot succeed.</li>
 *   <li>Record offsetDeltas must be 0, 1, 2, ...: Kafka tolerates gaps by rebuilding the batch, but Cairn
 *       stores batches verbatim, and every current client (Java, librdkafka, franz-go) writes dense deltas.</li>
 *   <li>Trailing bytes after the batch are refused rather than ignored.</li>
 * </ul>
 */
public final class ProduceBatchValidator {
    /** Produce v3 introduced magic 2 and the one-batch-per-partition rule (KIP-98). */
    public static final short PRODUCE_VERSION_MAGIC_V2_MIN = 3;
    /** Produce v7 is the first that may carry zstd (KIP-110). */
    public static final short PRODUCE_VERSION_ZSTD_MIN = 7;

    private ProduceBatchValidator() {
    }

    /**
     * Validates the bytes between {@code partitionRecords}' position and limit (the position does not move).
     *
     * @param produceVersion the Produce request version the batch arrived in; the rules are those of v3 and
     *     later (magic 2 only), which is all Cairn accepts, so an older version is held to them too
     * @param nowMs the broker's clock reading for this request, for the timestamp window
     */
    public static BatchValidationResult validate(ByteBuffer partitionRecords, short produceVersion,
                                                 BatchValidationConfig config, long nowMs) {
        BatchValidationResult framing = validateFraming(partitionRecords, produceVersion);
        if (framing != null) {
            return framing;
        }
        RecordBatch batch = RecordBatch.of(partitionRecords);
        BatchValidationResult header = validateHeader(batch, config);
        if (header != null) {
            return header;
        }
        BatchValidationResult records = validateRecords(batch, config, nowMs);
        if (!records.isValid()) {
            return records;
        }
        if (batch.sizeInBytes() > config.segmentBytes()) {
            return BatchValidationResult.rejected(ErrorCode.RECORD_LIST_TOO_LARGE, "batch of "
                    + batch.sizeInBytes() + " bytes exceeds the segment size of " + config.segmentBytes());
        }
        return records;
    }

    /** The checks Kafka makes before it even has a batch object: one complete magic-2 batch, and zstd. */
    private static BatchValidationResult validateFraming(ByteBuffer payload, short produceVersion) {
        int start = payload.position();
        int available = payload.remaining();
        if (available <= MAGIC_OFFSET) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "produce request v" + produceVersion
                    + " must carry one record batch per partition, got " + available + " bytes");
        }
        int length = payload.getInt(start + LENGTH_OFFSET);
        if (length < LENGTH_MIN) {
            return BatchValidationResult.rejected(ErrorCode.CORRUPT_MESSAGE, "record batch length " + length
                    + " is less than the minimum " + LENGTH_MIN);
        }
        long batchBytes = (long) length + LOG_OVERHEAD_BYTES;
        if (batchBytes > available) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "record batch of " + batchBytes
                    + " bytes is truncated to " + available);
        }
        byte magic = payload.get(start + MAGIC_OFFSET);
        if (magic != MAGIC_V2) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "produce request v" + produceVersion
                    + " may only carry record batches with magic 2, got magic " + magic);
        }
        RecordBatch batch = RecordBatch.of(payload);
        if (batch.compressionCodecId() == CompressionType.ZSTD.id() && produceVersion < PRODUCE_VERSION_ZSTD_MIN) {
            return BatchValidationResult.rejected(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, "produce request v"
                    + produceVersion + " may not use zstd compression (needs v" + PRODUCE_VERSION_ZSTD_MIN + ")");
        }
        if (batchBytes < available) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "produce request v" + produceVersion
                    + " must carry exactly one record batch per partition; " + (available - batchBytes)
                    + " bytes follow the first batch");
        }
        return null;
    }

    /** The batch-header checks of analyzeAndValidateRecords and LogValidator.validateBatch, in that order. */
    private static BatchValidationResult validateHeader(RecordBatch batch, BatchValidationConfig config) {
        if (batch.baseOffset() != 0) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "a client batch's baseOffset must be"
                    + " 0, got " + batch.baseOffset());
        }
        if (batch.sizeInBytes() > config.messageBytesMax()) {
            return BatchValidationResult.rejected(ErrorCode.MESSAGE_TOO_LARGE, "record batch of "
                    + batch.sizeInBytes() + " bytes exceeds max.message.bytes " + config.messageBytesMax());
        }
        if (!batch.isChecksumValid()) {
            return BatchValidationResult.rejected(ErrorCode.CORRUPT_MESSAGE, "record batch is corrupt: stored crc "
                    + batch.checksum() + ", computed " + batch.computeChecksum());
        }
        int codecId = batch.compressionCodecId();
        if (codecId >= CompressionType.values().length) {
            return BatchValidationResult.rejected(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, "unknown compression"
                    + " codec id " + codecId);
        }
        CompressionType compressionType = CompressionType.forId(codecId);
        if (!Compression.isAvailable(compressionType)) {
            return BatchValidationResult.rejected(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
                    new CodecUnavailableException(compressionType).getMessage());
        }
        long countFromOffsets = (long) batch.lastOffsetDelta() + 1;
        if (countFromOffsets <= 0) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "batch has an invalid offset range:"
                    + " lastOffsetDelta " + batch.lastOffsetDelta());
        }
        if (batch.recordsCount() <= 0) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "invalid records count "
                    + batch.recordsCount());
        }
        if (countFromOffsets != batch.recordsCount()) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "lastOffsetDelta "
                    + batch.lastOffsetDelta() + " disagrees with records count " + batch.recordsCount());
        }
        if (batch.isControl()) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "clients may not write control"
                    + " batches");
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "invalid sequence number "
                    + batch.baseSequence() + " in a batch with producerId " + batch.producerId());
        }
        if (batch.isTransactional() && !batch.hasProducerId()) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, "a transactional batch without a"
                    + " producer id");
        }
        return null;
    }

    /** Parses every record (after decompression) and applies the per-record rules. */
    private static BatchValidationResult validateRecords(RecordBatch batch, BatchValidationConfig config,
                                                         long nowMs) {
        RecordCursor cursor = new RecordCursor();
        long maxTimestamp = NO_TIMESTAMP;
        int offsetDeltaOfMaxTimestamp = -1;
        int timestampErrorIndex = -1;
        String timestampError = null;
        int keyErrorIndex = -1;
        try {
            cursor.reset(batch, config.decompressedBytesMax());
            while (cursor.next()) {
                int index = cursor.recordIndex();
                if (cursor.offsetDelta() != index) {
                    return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, index, "record " + index
                            + " has offsetDelta " + cursor.offsetDelta() + "; offsets must be dense from 0");
                }
                if (config.keyRequired() && cursor.keySize() < 0 && keyErrorIndex < 0) {
                    keyErrorIndex = index;
                }
                long timestamp = cursor.timestamp();
                if (timestampError == null) {
                    String error = timestampError(batch, config, timestamp, nowMs);
                    if (error != null) {
                        timestampError = error;
                        timestampErrorIndex = index;
                    }
                }
                if (timestamp > maxTimestamp) {
                    maxTimestamp = timestamp;
                    offsetDeltaOfMaxTimestamp = cursor.offsetDelta();
                }
            }
        } catch (DecodeException e) {
            int index = cursor.recordIndex();
            boolean withinBatch = index >= 0 && index < batch.recordsCount();
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD,
                    withinBatch ? index : BatchValidationResult.NO_RECORD_INDEX,
                    "invalid record structure: " + e.getMessage());
        } catch (DecompressedSizeExceededException e) {
            return BatchValidationResult.rejected(ErrorCode.MESSAGE_TOO_LARGE, e.getMessage());
        } catch (CodecUnavailableException e) {
            return BatchValidationResult.rejected(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, e.getMessage());
        }
        if (timestampError != null) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_TIMESTAMP, timestampErrorIndex, timestampError);
        }
        if (keyErrorIndex >= 0) {
            return BatchValidationResult.rejected(ErrorCode.INVALID_RECORD, keyErrorIndex, "compacted topic"
                    + " cannot accept a record without a key (record " + keyErrorIndex + ")");
        }
        return BatchValidationResult.accepted(batch.start(), batch.sizeInBytes(), batch.recordsCount(),
                maxTimestamp, offsetDeltaOfMaxTimestamp);
    }

    /** Kafka's LogValidator.validateTimestamp: null when the timestamp is acceptable, else why not. */
    private static String timestampError(RecordBatch batch, BatchValidationConfig config, long timestampMs,
                                         long nowMs) {
        if (!config.logAppendTime() && timestampMs != NO_TIMESTAMP) {
            long behindMs = saturatedSubtract(nowMs, timestampMs);
            long aheadMs = saturatedSubtract(timestampMs, nowMs);
            if (behindMs > config.timestampBeforeMaxMs() || aheadMs > config.timestampAfterMaxMs()) {
                return "timestamp " + timestampMs + " is out of range; it must lie within [now - "
                        + config.timestampBeforeMaxMs() + ", now + " + config.timestampAfterMaxMs() + "] ms of "
                        + nowMs;
            }
            return null;
        }
        if (batch.isLogAppendTime()) {
            return "producers must not set the timestamp type to LogAppendTime";
        }
        return null;
    }

    /** {@code a - b}, clamped to the long range instead of wrapping, so extreme timestamps compare correctly. */
    private static long saturatedSubtract(long a, long b) {
        long difference = a - b;
        if (((a ^ b) & (a ^ difference)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return difference;
    }
}
