package dev.cairn.broker.log;

import static dev.cairn.protocol.record.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.HEADER_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_MIN;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_V2;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;

import dev.cairn.broker.io.FileHandle;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A reusable reader of one batch header at a time from a segment's {@code .log} file, for the read and lookup paths
 * of {@link Segment} (no CRC check).
 */
final class BatchHeader {
    private final FileHandle log;
    private final ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES);
    long baseOffset;
    long lastOffset;
    long maxTimestamp;
    int sizeBytes;

    BatchHeader(FileHandle log) {
        this.log = log;
    }

    /** Reads and checks the header; false when it is not a plausible batch header within {@code limit}. */
    boolean tryRead(int position, int limit) throws IOException {
        if (position + HEADER_BYTES > limit) {
            return false;
        }
        buffer.clear();
        log.readFully(buffer, position);
        int length = buffer.getInt(LENGTH_OFFSET);
        if (length < LENGTH_MIN || position + (long) length + LOG_OVERHEAD_BYTES > limit
                || buffer.get(MAGIC_OFFSET) != MAGIC_V2 || buffer.getInt(LAST_OFFSET_DELTA_OFFSET) < 0) {
            return false;
        }
        baseOffset = buffer.getLong(BASE_OFFSET_OFFSET);
        lastOffset = baseOffset + buffer.getInt(LAST_OFFSET_DELTA_OFFSET);
        maxTimestamp = buffer.getLong(MAX_TIMESTAMP_OFFSET);
        sizeBytes = length + LOG_OVERHEAD_BYTES;
        return true;
    }

    void read(int position, int limit) throws IOException {
        if (!tryRead(position, limit)) {
            throw new LogCorruptionException(log.path(), position, "bad batch header (length "
                    + (buffer.position() >= LOG_OVERHEAD_BYTES ? buffer.getInt(LENGTH_OFFSET) : -1)
                    + ", limit " + limit + ")");
        }
    }
}
