package dev.cairn.protocol.record;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.RECORDS_OFFSET;

import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;

/**
 * Rewrites a batch with another compression codec, for a topic whose {@code compression.type} names one (Kafka's
 * LogValidator recompresses in the same case). The header is kept (offsets, producer id, epoch, sequence,
 * timestamps, record count); only the records section, the codec bits, the length and the CRC change. Call it on
 * the leader before replication, on a batch that passed {@link ProduceBatchValidator}.
 */
public final class BatchRecompressor {
    private BatchRecompressor() {
    }

    /**
     * The batch as {@code target} compresses it: the batch itself (not copied) when it already uses {@code target},
     * else a new buffer.
     *
     * @param decompressedBytesMax how far the records may inflate (the validation limit)
     */
    public static ByteBuffer recompress(RecordBatch batch, CompressionType target, int decompressedBytesMax) {
        CompressionType source = batch.compressionType();
        if (source == target) {
            return batch.slice();
        }
        ByteBuffer records = batch.buffer().duplicate();
        records.limit(batch.start() + batch.sizeInBytes()).position(batch.start() + RECORDS_OFFSET);
        ByteBuffer raw = source == CompressionType.NONE ? records.slice()
                : Compression.decompress(source, records, decompressedBytesMax);
        ByteBuffer body = target == CompressionType.NONE ? raw : Compression.compress(target, raw);
        ByteBuffer out = ByteBuffer.allocate(RECORDS_OFFSET + body.remaining());
        ByteBuffer header = batch.buffer().duplicate();
        header.limit(batch.start() + RECORDS_OFFSET).position(batch.start());
        out.put(header).put(body.duplicate()).flip();
        out.putInt(LENGTH_OFFSET, out.remaining() - LOG_OVERHEAD_BYTES);
        short attributes = out.getShort(ATTRIBUTES_OFFSET);
        out.putShort(ATTRIBUTES_OFFSET, (short) ((attributes & ~COMPRESSION_CODEC_MASK) | target.id()));
        new RecordBatch().wrap(out, 0).writeChecksum();
        return out;
    }
}
