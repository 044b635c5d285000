package dev.cairn.protocol.record.compression;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Lets a codec stream be closed (which flushes its trailer) without closing the caller's stream. */
final class NonClosingOutputStream extends FilterOutputStream {
    NonClosingOutputStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        out.write(bytes, offset, length);
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
