package dev.cairn.protocol.record.compression;

import java.io.InputStream;
import java.nio.ByteBuffer;

/** An InputStream over a private view of a ByteBuffer; the caller's buffer position never moves. */
final class ByteBufferInputStream extends InputStream {
    private final ByteBuffer view;

    ByteBufferInputStream(ByteBuffer buffer) {
        this.view = buffer.duplicate();
    }

    @Override
    public int read() {
        return view.hasRemaining() ? view.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) {
        if (length == 0) {
            return 0;
        }
        if (!view.hasRemaining()) {
            return -1;
        }
        int count = Math.min(length, view.remaining());
        view.get(bytes, offset, count);
        return count;
    }

    @Override
    public int available() {
        return view.remaining();
    }
}
