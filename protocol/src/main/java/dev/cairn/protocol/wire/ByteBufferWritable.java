package dev.cairn.protocol.wire;

import java.nio.ByteBuffer;

/** A {@link Writable} into a {@link ByteBuffer} that the caller sized from the message's computed size. */
public final class ByteBufferWritable implements Writable {
    private final ByteBuffer buffer;

    public ByteBufferWritable(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public void writeByte(byte value) {
        buffer.put(value);
    }

    @Override
    public void writeShort(short value) {
        buffer.putShort(value);
    }

    @Override
    public void writeInt(int value) {
        buffer.putInt(value);
    }

    @Override
    public void writeLong(long value) {
        buffer.putLong(value);
    }

    @Override
    public void writeDouble(double value) {
        buffer.putDouble(value);
    }

    @Override
    public void writeBytes(byte[] source, int offset, int length) {
        buffer.put(source, offset, length);
    }

    @Override
    public void writeBytes(ByteBuffer source) {
        buffer.put(source.duplicate());
    }
}
