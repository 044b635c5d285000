package dev.cairn.broker.log;

import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_MIN;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LENGTH_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.MAGIC_V2;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.protocol.record.RecordBatch;
import java.io.IOException;

/**
 * The strict scan of a segment's {@code .log} file that recovery trusts: batch by batch it checks the length, the
 * magic, the CRC-32C and that offsets are dense from the segment's base offset, hands each valid batch to a
 * {@link BatchListener}, and stops at the first invalid one. The file itself is not modified.
 */
final class SegmentScanner {
    private SegmentScanner() {
    }

    /** Receives each valid batch of a scan, in file order. */
    @FunctionalInterface
    interface BatchListener {
        void onBatch(int position, int size, long batchBaseOffset, long lastOffset, long batchMaxTimestamp);
    }

    /** Scans the file of the segment based at {@code baseOffset} from its start to its end (or first bad batch). */
    static ScanResult scan(FileHandle log, long baseOffset, BatchListener listener) throws IOException {
        long fileBytes = log.size();
        BatchReader reader = new BatchReader(log, fileBytes);
        RecordBatch batch = new RecordBatch();
        int position = 0;
        long expectedOffset = baseOffset;
        while (position < fileBytes) {
            if (!reader.fill(position, LOG_OVERHEAD_BYTES)) {
                return ScanResult.invalid(position, expectedOffset, "incomplete batch header at end of file");
            }
            int length = reader.buffer().getInt(reader.offsetOf(position) + LENGTH_OFFSET);
            long end = position + (long) LOG_OVERHEAD_BYTES + length;
            if (length < LENGTH_MIN) {
                return ScanResult.invalid(position, expectedOffset, "batch length " + length + " below " + LENGTH_MIN);
            }
            if (end > fileBytes || end > SegmentDescriptor.SEGMENT_BYTES_MAX) {
                return ScanResult.invalid(position, expectedOffset,
                        "batch of " + (length + LOG_OVERHEAD_BYTES) + " bytes runs past end of file " + fileBytes);
            }
            reader.fill(position, length + LOG_OVERHEAD_BYTES);
            batch.wrap(reader.buffer(), reader.offsetOf(position));
            String problem = checkBatch(batch, baseOffset, expectedOffset);
            if (problem != null) {
                return ScanResult.invalid(position, expectedOffset, problem);
            }
            listener.onBatch(position, batch.sizeInBytes(), batch.baseOffset(), batch.lastOffset(),
                    batch.maxTimestamp());
            position = (int) end;
            expectedOffset = batch.lastOffset() + 1;
        }
        return ScanResult.valid(position, expectedOffset);
    }

    private static String checkBatch(RecordBatch batch, long baseOffset, long expectedOffset) {
        if (batch.magic() != MAGIC_V2) {
            return "magic " + batch.magic() + ", expected " + MAGIC_V2;
        }
        if (!batch.isChecksumValid()) {
            return String.format("CRC-32C mismatch: stored %08x, computed %08x", batch.checksum(),
                    batch.computeChecksum());
        }
        if (batch.baseOffset() != expectedOffset) {
            return "base offset " + batch.baseOffset() + ", expected " + expectedOffset;
        }
        if (batch.lastOffsetDelta() < 0 || batch.lastOffset() - baseOffset > SegmentDescriptor.RELATIVE_OFFSET_MAX) {
            return "last offset delta " + batch.lastOffsetDelta() + " out of range";
        }
        return null;
    }

    /** The outcome of a scan: the valid prefix, and why scanning stopped early (null if it did not). */
    record ScanResult(int validBytes, long nextOffset, String problem) {
        static ScanResult valid(int validBytes, long nextOffset) {
            return new ScanResult(validBytes, nextOffset, null);
        }

        static ScanResult invalid(int position, long nextOffset, String problem) {
            return new ScanResult(position, nextOffset, problem);
        }

        boolean isComplete() {
            return problem == null;
        }
    }
}
