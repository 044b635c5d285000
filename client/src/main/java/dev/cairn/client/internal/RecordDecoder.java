package dev.cairn.client.internal;

import dev.cairn.client.CairnApiException;
import dev.cairn.client.CairnException;
import dev.cairn.client.ConsumerRecord;
import dev.cairn.client.Header;
import dev.cairn.client.TopicPartition;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.record.RecordBatch;
import dev.cairn.protocol.record.RecordBatchDescriptor;
import dev.cairn.protocol.record.RecordCursor;
import dev.cairn.protocol.record.compression.CodecUnavailableException;
import dev.cairn.protocol.wire.DecodeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the records bytes of one fetched partition into consumer records. A fetch response may end in a partial
 * batch (the broker cuts at max bytes), which is skipped and fetched again next time; records before the fetch
 * position (the broker returns the whole batch holding it) and control batches are dropped.
 */
public final class RecordDecoder {
    private final RecordBatch batch = new RecordBatch();
    private final RecordCursor cursor = new RecordCursor();
    private final boolean checkCrcs;

    public RecordDecoder(boolean checkCrcs) {
        this.checkCrcs = checkCrcs;
    }

    /** The decoded records and the offset to fetch next (unchanged when no whole batch arrived). */
    public record Decoded(List<ConsumerRecord> records, long nextFetchOffset) {
    }

    public Decoded decode(TopicPartition topicPartition, ByteBuffer records, long fetchOffset) {
        List<ConsumerRecord> decoded = new ArrayList<>();
        long nextFetchOffset = fetchOffset;
        int position = records.position();
        while (records.limit() - position >= RecordBatchDescriptor.HEADER_BYTES) {
            int length = records.getInt(position + RecordBatchDescriptor.LENGTH_OFFSET);
            if (length + RecordBatchDescriptor.LOG_OVERHEAD_BYTES > records.limit() - position) {
                break;
            }
            batch.wrap(records, position);
            position += batch.sizeInBytes();
            if (checkCrcs && !batch.isChecksumValid()) {
                throw new CairnApiException(ErrorCode.CORRUPT_MESSAGE, "fetched batch at offset "
                        + batch.baseOffset() + " of " + topicPartition);
            }
            nextFetchOffset = Math.max(nextFetchOffset, batch.lastOffset() + 1);
            if (batch.isControl() || batch.lastOffset() < fetchOffset) {
                continue;
            }
            decodeBatch(topicPartition, fetchOffset, decoded);
        }
        return new Decoded(decoded, nextFetchOffset);
    }

    private void decodeBatch(TopicPartition topicPartition, long fetchOffset, List<ConsumerRecord> decoded) {
        try {
            cursor.reset(batch);
            while (cursor.next()) {
                if (cursor.offset() < fetchOffset) {
                    continue;
                }
                decoded.add(new ConsumerRecord(topicPartition.topic(), topicPartition.partition(), cursor.offset(),
                        cursor.timestamp(), copy(cursor.key()), copy(cursor.value()), headers()));
            }
        } catch (CodecUnavailableException missing) {
            // The codec libraries are optional: say which one to add rather than failing obscurely.
            throw new CairnException("cannot read a " + batch.compressionType().kafkaName() + " batch of "
                    + topicPartition + ": add " + batch.compressionType().libraryCoordinates()
                    + " to the classpath", false, missing);
        } catch (DecodeException malformed) {
            throw new CairnApiException(ErrorCode.CORRUPT_MESSAGE, "malformed batch at offset " + batch.baseOffset()
                    + " of " + topicPartition + " (" + malformed.getMessage() + ")");
        }
    }

    private List<Header> headers() {
        int count = cursor.headerCount();
        if (count == 0) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            headers.add(new Header(cursor.headerKeyString(i), copy(cursor.headerValue(i))));
        }
        return headers;
    }

    private static byte[] copy(ByteBuffer slice) {
        if (slice == null) {
            return null;
        }
        byte[] bytes = new byte[slice.remaining()];
        slice.duplicate().get(bytes);
        return bytes;
    }
}
