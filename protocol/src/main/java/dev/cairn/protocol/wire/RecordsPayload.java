package dev.cairn.protocol.wire;

/**
 * The value of a {@code records} field on encode. Its size is known before its bytes are written, so a response
 * frame's size prefix can be computed without touching the bytes, and a network sink may send a file-backed
 * payload as a zero-copy region (see {@link Writable#writeRecords}).
 */
public interface RecordsPayload {
    int sizeInBytes();

    /** Writes exactly {@link #sizeInBytes()} bytes. */
    void writeTo(Writable out);
}
