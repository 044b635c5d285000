package dev.cairn.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.ConsumerRecord;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchBuilder;
import dev.cairn.protocol.record.RecordHeader;
import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fetched bytes as the broker returns them: whole batches from the one holding the fetch offset, possibly cut
 * mid-batch at the end (kafka-protocol.md A.1: "Fetch must return the whole batch containing the fetch offset").
 */
class RecordDecoderTest {
    private static final TopicPartition PARTITION = new TopicPartition("t", 0);

    /** A batch of {@code count} records whose first offset is {@code baseOffset}. */
    private static ByteBuffer batch(long baseOffset, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(CompressionType.GZIP);
        for (int i = 0; i < count; i++) {
            builder.append(1_000 + i, null, new byte[] {(byte) (baseOffset + i)}, new RecordHeader[0]);
        }
        ByteBuffer built = builder.build();
        RecordBatch.of(built).setBaseOffset(baseOffset);
        return built;
    }

    private static ByteBuffer concat(ByteBuffer... parts) {
        int size = 0;
        for (ByteBuffer part : parts) {
            size += part.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(size);
        for (ByteBuffer part : parts) {
            all.put(part.duplicate());
        }
        return all.flip();
    }

    @Test
    void dropsRecordsBeforeTheFetchOffsetAndSkipsAPartialTrailingBatch() {
        ByteBuffer first = batch(10, 5);
        ByteBuffer second = batch(15, 5);
        ByteBuffer partial = batch(20, 5).limit(30);
        RecordDecoder.Decoded decoded = new RecordDecoder(true).decode(PARTITION, concat(first, second, partial), 12);
        List<ConsumerRecord> records = decoded.records();
        assertEquals(8, records.size(), "offsets 12 to 19");
        assertEquals(12, records.get(0).offset());
        assertEquals(19, records.get(7).offset());
        assertEquals(1_002, records.get(0).timestampMs());
        assertEquals(20, decoded.nextFetchOffset(), "the partial batch is fetched again");
    }

    @Test
    void onlyAPartialBatchLeavesTheFetchOffsetAlone() {
        RecordDecoder.Decoded decoded = new RecordDecoder(true).decode(PARTITION, batch(0, 3).limit(20), 0);
        assertEquals(0, decoded.records().size());
        assertEquals(0, decoded.nextFetchOffset());
    }

    @Test
    void aCorruptBatchIsReportedAsCorruptMessage() {
        ByteBuffer corrupt = batch(0, 3);
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1));
        CairnApiException failure = assertThrows(CairnApiException.class,
                () -> new RecordDecoder(true).decode(PARTITION, corrupt, 0));
        assertEquals(ErrorCode.CORRUPT_MESSAGE, failure.errorCode());
    }
}
