package dev.cairn.broker.api;

import dev.cairn.broker.log.LogSlice;
import dev.cairn.protocol.wire.Writable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;

/** A file-backed log slice as a fetch response's records: sent by the network layer with sendfile(2). */
final class LogSlicePayload implements FileSlicePayload {
    private final LogSlice slice;

    LogSlicePayload(LogSlice slice) {
        this.slice = slice;
    }

    @Override
    public FileChannel channel() {
        return slice.fileChannel();
    }

    @Override
    public long position() {
        return slice.position();
    }

    @Override
    public int sizeInBytes() {
        return slice.sizeBytes();
    }

    /** The copying path, for sinks that cannot send file regions (tests, non-network encoders). */
    @Override
    public void writeTo(Writable out) {
        try {
            out.writeBytes(slice.readBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
