package dev.cairn.broker.api;

import dev.cairn.protocol.record.BatchRecompressor;
import dev.cairn.protocol.record.BatchValidationConfig;
import dev.cairn.protocol.record.LogAppendTimeStamper;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * What a topic's configs change in a validated batch before it is replicated, as Kafka's LogValidator does on the
 * leader: {@code compression.type} other than {@code producer} recompresses a batch written with another codec, and
 * {@code message.timestamp.type=LogAppendTime} stamps the append time (style.md point 5: every replica then stores
 * the same bytes). A batch neither applies to is returned as it came, not copied.
 */
final class TopicBatchRewriter {
    private TopicBatchRewriter() {
    }

    static ByteBuffer rewrite(ByteBuffer batch, Map<String, String> topicConfigs, BatchValidationConfig validation,
            long nowMs) {
        CompressionType target = TopicConfigs.storedCompression(topicConfigs);
        ByteBuffer stored = batch;
        if (target != null) {
            RecordBatch header = new RecordBatch().wrap(batch, batch.position());
            if (header.compressionType() != target) {
                stored = BatchRecompressor.recompress(header, target, validation.decompressedBytesMax());
            }
        }
        if (validation.logAppendTime()) {
            LogAppendTimeStamper.stamp(new RecordBatch().wrap(stored, stored.position()), nowMs);
        }
        return stored;
    }
}
