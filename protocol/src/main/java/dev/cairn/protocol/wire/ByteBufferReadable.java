package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;

/**
 * A {@link Readable} over a {@link ByteBuffer} between its position and limit. Every read checks the bytes
 * remaining first, so running off the end is a {@link DecodeException}, never a buffer exception.
 */
public final class ByteBufferReadable implements Readable {
    private final ByteBuffer buffer;
    private final boolean copySlices;

    /** Slices ({@link #readSlice}) are views of {@code buffer}. */
    public ByteBufferReadable(ByteBuffer buffer) {
        this(buffer, false);
    }

    /**
     * With {@code copySlices}, each {@link #readSlice} is copied into a heap buffer of exactly its size: what is
     * decoded holds nothing of {@code buffer}, which may then be reused, and a slice kept long (a record batch in
     * Raft's log cache) keeps only its own bytes alive, not the whole request it came in.
     */
    public ByteBufferReadable(ByteBuffer buffer, boolean copySlices) {
        this.buffer = buffer;
        this.copySlices = copySlices;
    }

    private void require(int bytes) {
        if (bytes < 0 || bytes > buffer.remaining()) {
            throw DecodeException.format("need %d bytes, %d remaining", bytes, buffer.remaining());
        }
    }

    @Override
    public int remaining() {
        return buffer.remaining();
    }

    @Override
    public byte readByte() {
        require(Byte.BYTES);
        return buffer.get();
    }

    @Override
    public short readShort() {
        require(Short.BYTES);
        return buffer.getShort();
    }

    @Override
    public int readInt() {
        require(Integer.BYTES);
        return buffer.getInt();
    }

    @Override
    public long readLong() {
        require(Long.BYTES);
        return buffer.getLong();
    }

    @Override
    public double readDouble() {
        require(Double.BYTES);
        return buffer.getDouble();
    }

    @Override
    public int readUnsignedVarint() {
        return Varints.readUnsignedVarint(buffer);
    }

    @Override
    public int readVarint() {
        return Varints.readVarint(buffer);
    }

    @Override
    public long readVarlong() {
        return Varints.readVarlong(buffer);
    }

    @Override
    public ByteBuffer readSlice(int length) {
        require(length);
        if (copySlices) {
            ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(buffer.slice().limit(length)).flip();
            buffer.position(buffer.position() + length);
            return copy;
        }
        ByteBuffer slice = buffer.slice();
        slice.limit(length);
        buffer.position(buffer.position() + length);
        return slice;
    }

    @Override
    public byte[] readBytes(int length) {
        require(length);
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    @Override
    public void skip(int length) {
        require(length);
        buffer.position(buffer.position() + length);
    }
}
