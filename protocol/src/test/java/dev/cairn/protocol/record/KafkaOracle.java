package dev.cairn.protocol.record;

import dev.cairn.protocol.record.compression.CompressionType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * kafka-clients 4.4 as the test oracle: builds batches with {@code MemoryRecordsBuilder} and reads batches back
 * with {@code MemoryRecords}. The record classes moved to {@code org.apache.kafka.common.record.internal} in 4.4.
 */
final class KafkaOracle {
    /** A record as a test describes it, in Cairn's terms; null key, value and header value are allowed. */
    record TestRecord(long timestampMs, byte[] key, byte[] value, RecordHeader... headers) {
    }

    /** The producer fields a test batch carries; {@link #NONE} is a plain (non-idempotent) producer. */
    record Producer(long producerId, short producerEpoch, int baseSequence) {
        static final Producer NONE = new Producer(RecordBatchDescriptor.NO_PRODUCER_ID,
                RecordBatchDescriptor.NO_PRODUCER_EPOCH, RecordBatchDescriptor.NO_SEQUENCE);
    }

    private KafkaOracle() {
    }

    static Compression kafkaCompression(CompressionType compressionType) {
        return compressionType == CompressionType.NONE
                ? Compression.NONE : Compression.of(compressionType.kafkaName()).build();
    }

    /** Builds one batch with kafka-clients, as its producer would (CreateTime, baseOffset 0). */
    static ByteBuffer kafkaBatch(CompressionType compressionType, Producer producer, List<TestRecord> records) {
        int capacity = 1024;
        for (TestRecord record : records) {
            capacity += 64 + length(record.key()) + length(record.value());
            for (RecordHeader header : record.headers()) {
                capacity += 16 + header.key().length() * 3 + length(header.value());
            }
        }
        ByteBuffer buffer = ByteBuffer.allocate(capacity);
        MemoryRecordsBuilder builder = MemoryRecords.builder(buffer, org.apache.kafka.common.record.internal
                        .RecordBatch.MAGIC_VALUE_V2, kafkaCompression(compressionType), TimestampType.CREATE_TIME,
                0L, org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP, producer.producerId(),
                producer.producerEpoch(), producer.baseSequence(), false,
                org.apache.kafka.common.record.internal.RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (TestRecord record : records) {
            builder.append(record.timestampMs(), record.key(), record.value(), kafkaHeaders(record.headers()));
        }
        MemoryRecords built = builder.build();
        ByteBuffer batch = built.buffer();
        ByteBuffer copy = ByteBuffer.allocate(batch.remaining());
        copy.put(batch.duplicate()).flip();
        return copy;
    }

    static Header[] kafkaHeaders(RecordHeader[] headers) {
        Header[] kafka = new Header[headers.length];
        for (int i = 0; i < headers.length; i++) {
            kafka[i] = new org.apache.kafka.common.header.internals.RecordHeader(headers[i].key(),
                    headers[i].value());
        }
        return kafka;
    }

    /** Reads a buffer holding exactly one batch with kafka-clients. */
    static MutableRecordBatch onlyKafkaBatch(ByteBuffer buffer) {
        List<MutableRecordBatch> batches = new ArrayList<>();
        MemoryRecords.readableRecords(buffer.duplicate()).batches().forEach(batches::add);
        if (batches.size() != 1) {
            throw new AssertionError("expected one batch, kafka-clients read " + batches.size());
        }
        return batches.get(0);
    }

    /** A varied record set: null keys and values, empty and multi-byte fields, headers with null values. */
    static List<TestRecord> variedRecords(long firstTimestampMs, int count, long seed) {
        Random random = new Random(seed);
        List<TestRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = i % 5 == 1 ? null : bytes(random, i % 7 == 0 ? 0 : 1 + random.nextInt(40));
            byte[] value = i % 6 == 2 ? null : bytes(random, i % 11 == 0 ? 0 : 1 + random.nextInt(300));
            RecordHeader[] headers = new RecordHeader[i % 4];
            for (int h = 0; h < headers.length; h++) {
                byte[] headerValue = h == 1 ? null : bytes(random, random.nextInt(20));
                headers[h] = new RecordHeader("h" + h + (i % 3 == 0 ? "-ключ" : ""), headerValue);
            }
            // Timestamps go backwards now and then: deltas are signed, and maxTimestamp is not the last one.
            long timestamp = firstTimestampMs + (i % 9 == 4 ? -1000 - i : i * 10L);
            records.add(new TestRecord(timestamp, key, value, headers));
        }
        return records;
    }

    static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }
}
