package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.TIMESTAMP_TYPE_MASK;

/**
 * Stamps a batch for a topic with {@code message.timestamp.type=LogAppendTime}: sets the timestamp-type bit in
 * the attributes and writes the append time as maxTimestamp. Readers then report maxTimestamp as every record's
 * timestamp, so the records themselves are not touched and a compressed batch is not recompressed. Both fields
 * lie under the CRC, which is recomputed; this is the only case where the broker changes checksummed bytes.
 *
 * <p>Call it on the leader before replication (style.md point 5: stamp anything non-deterministic before the
 * Raft log), with the time read once for the whole request.
 */
public final class LogAppendTimeStamper {
    private LogAppendTimeStamper() {
    }

    public static void stamp(RecordBatch batch, long logAppendTimeMs) {
        int attributesPosition = batch.start() + ATTRIBUTES_OFFSET;
        short attributes = batch.buffer().getShort(attributesPosition);
        batch.buffer().putShort(attributesPosition, (short) (attributes | TIMESTAMP_TYPE_MASK));
        batch.buffer().putLong(batch.start() + MAX_TIMESTAMP_OFFSET, logAppendTimeMs);
        batch.writeChecksum();
    }
}
