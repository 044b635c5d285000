package dev.cairn.protocol.record;

import dev.cairn.protocol.record.compression.CompressionType;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;

/**
 * Transaction markers: the control batches a partition's log holds where a transaction ended. One record, whose key
 * is {@code version i16 (0), type i16 (0 = abort, 1 = commit)} and whose value is {@code version i16 (0),
 * coordinatorEpoch i32}, in a batch with the transactional and control attributes set, the producer's id and epoch,
 * and no sequence (Kafka's {@code EndTransactionMarker}, read from its wire layout).
 */
public final class ControlBatch {
    /** The control record type of an abort marker. */
    public static final short ABORT = 0;
    /** The control record type of a commit marker. */
    public static final short COMMIT = 1;
    private static final short KEY_VERSION = 0;
    private static final short VALUE_VERSION = 0;
    private static final int KEY_BYTES = 4;
    private static final int VALUE_BYTES = 6;

    private ControlBatch() {
    }

    /** A marker batch at base offset 0 (placed later), stamped {@code timestampMs}, its CRC filled in. */
    public static ByteBuffer marker(long producerId, short producerEpoch, boolean commit, int coordinatorEpoch,
            long timestampMs) {
        ByteBuffer key = ByteBuffer.allocate(KEY_BYTES).putShort(KEY_VERSION).putShort(commit ? COMMIT : ABORT)
                .flip();
        ByteBuffer value = ByteBuffer.allocate(VALUE_BYTES).putShort(VALUE_VERSION).putInt(coordinatorEpoch).flip();
        ByteBuffer batch = new RecordBatchBuilder(CompressionType.NONE, KEY_BYTES + VALUE_BYTES + 16)
                .producerState(producerId, producerEpoch, RecordBatchDescriptor.NO_SEQUENCE)
                .append(timestampMs, key, value).build();
        batch.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) (RecordBatchDescriptor.TRANSACTIONAL_MASK
                | RecordBatchDescriptor.CONTROL_MASK));
        RecordBatch.of(batch).writeChecksum();
        return batch;
    }

    /**
     * The control record type of a control batch's first record ({@link #COMMIT}, {@link #ABORT}, or another type
     * Kafka defines); a batch that is not a control batch or whose first key is shorter than 4 bytes is a
     * DecodeException.
     */
    public static short type(RecordBatch batch) {
        if (!batch.isControl()) {
            throw new DecodeException("not a control batch");
        }
        RecordCursor records = new RecordCursor().reset(batch);
        if (!records.next() || records.keySize() < KEY_BYTES) {
            throw new DecodeException("control batch without a control record key");
        }
        ByteBuffer key = records.key();
        return key.getShort(key.position() + 2);
    }
}
