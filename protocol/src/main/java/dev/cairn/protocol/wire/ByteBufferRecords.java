package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;

/**
 * A records payload held in memory. On decode the codec wraps a slice of the frame (no copy), so the broker can
 * validate and store the producer's batch straight from the request buffer.
 */
public final class ByteBufferRecords implements RecordsPayload {
    private final ByteBuffer records;

    private ByteBufferRecords(ByteBuffer records) {
        this.records = records;
    }

    /** Wraps the buffer's remaining bytes; the buffer must not be modified afterwards. */
    public static ByteBufferRecords of(ByteBuffer records) {
        return new ByteBufferRecords(records.slice());
    }

    /**
     * Returns the bytes of a records value that came from a decoder, which always produces this class; any other
     * payload (a file slice) has no buffer to give.
     */
    public static ByteBuffer bufferOf(RecordsPayload decoded) {
        if (!(decoded instanceof ByteBufferRecords)) {
            throw new IllegalArgumentException("not an in-memory records payload: " + decoded);
        }
        return ((ByteBufferRecords) decoded).buffer();
    }

    /** Returns an independent view of the bytes, positioned at their start. */
    public ByteBuffer buffer() {
        return records.duplicate();
    }

    @Override
    public int sizeInBytes() {
        return records.remaining();
    }

    @Override
    public void writeTo(Writable out) {
        out.writeBytes(records);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ByteBufferRecords && records.equals(((ByteBufferRecords) other).records);
    }

    @Override
    public int hashCode() {
        return records.hashCode();
    }

    @Override
    public String toString() {
        return "ByteBufferRecords[" + records.remaining() + " bytes]";
    }
}
