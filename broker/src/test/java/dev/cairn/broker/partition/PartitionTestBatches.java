package dev.cairn.broker.partition;

import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Client batches with real records, for tests outside this package: plain and transactional ones. */
public final class PartitionTestBatches {
    private PartitionTestBatches() {
    }

    /** A batch of {@code records} records without a producer id. */
    public static ByteBuffer plain(int records) {
        return build(new RecordBatchBuilder(CompressionType.NONE), records);
    }

    /** A transactional batch of {@code records} records, sequences from {@code baseSequence}. */
    public static ByteBuffer transactional(int records, long producerId, short epoch, int baseSequence) {
        return transactional(records, producerId, epoch, baseSequence, System.currentTimeMillis());
    }

    /** {@link #transactional(int, long, short, int)} with every record at {@code timestampMs}. */
    public static ByteBuffer transactional(int records, long producerId, short epoch, int baseSequence,
            long timestampMs) {
        ByteBuffer batch = build(new RecordBatchBuilder(CompressionType.NONE).producerState(producerId, epoch,
                baseSequence), records, timestampMs);
        batch.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) (batch.getShort(
                RecordBatchDescriptor.ATTRIBUTES_OFFSET) | RecordBatchDescriptor.TRANSACTIONAL_MASK));
        RecordBatch.of(batch).writeChecksum();
        return batch;
    }

    private static ByteBuffer build(RecordBatchBuilder builder, int records) {
        return build(builder, records, System.currentTimeMillis());
    }

    private static ByteBuffer build(RecordBatchBuilder builder, int records, long now) {
        for (int i = 0; i < records; i++) {
            builder.append(now, ("key-" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }
}
