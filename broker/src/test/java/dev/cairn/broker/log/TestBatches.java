package dev.cairn.broker.log;

import static dev.cairn.protocol.record.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.CRC_OFFSET;
import static dev.cairn.protocol.record.RecordBatchDescriptor.HEADER_BYTES;
import static dev.cairn.protocol.record.RecordBatchDescriptor.LOG_OVERHEAD_BYTES;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Lays out valid RecordBatch v2 bytes for tests (KIP-98 format, kafka-protocol.md A.2): the 61-byte header,
 * an opaque payload standing in for the records, and the CRC-32C over attributes..end. The storage engine
 * treats records as opaque, so the payload need not parse as records.
 */
public final class TestBatches {
    private TestBatches() {
    }

    /** A batch of {@code records} offsets from {@code baseOffset} with {@code payloadBytes} of filler. */
    public static ByteBuffer batch(long baseOffset, int records, long maxTimestamp, int payloadBytes, long fill) {
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES + payloadBytes);
        buffer.putLong(baseOffset);
        buffer.putInt(HEADER_BYTES + payloadBytes - LOG_OVERHEAD_BYTES);
        buffer.putInt(0); // partitionLeaderEpoch
        buffer.put((byte) 2);
        buffer.putInt(0); // crc, below
        buffer.putShort((short) 0); // attributes: no compression, CreateTime
        buffer.putInt(records - 1); // lastOffsetDelta
        buffer.putLong(maxTimestamp); // baseTimestamp
        buffer.putLong(maxTimestamp);
        buffer.putLong(-1L); // producerId
        buffer.putShort((short) -1); // producerEpoch
        buffer.putInt(-1); // baseSequence
        buffer.putInt(records);
        long state = fill * 0x9E3779B97F4A7C15L + baseOffset;
        for (int i = 0; i < payloadBytes; i++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            buffer.put((byte) (state >>> 56));
        }
        buffer.flip();
        CRC32C crc = new CRC32C();
        ByteBuffer covered = buffer.duplicate();
        covered.position(ATTRIBUTES_OFFSET);
        crc.update(covered);
        buffer.putInt(CRC_OFFSET, (int) crc.getValue());
        return buffer;
    }

    public static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
