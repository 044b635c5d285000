package dev.cairn.broker.net;

import dev.cairn.broker.api.FileSlicePayload;
import dev.cairn.protocol.wire.RecordsPayload;
import dev.cairn.protocol.wire.Writable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Writable} that encodes a response into pooled buffers and passes file-backed records through as
 * zero-copy file regions. The result is an ordered list of {@link ByteBuf} and {@link DefaultFileRegion} parts
 * that the channel writes one after the other.
 */
final class NettyResponseSink implements Writable {
    private final ByteBufAllocator allocator;
    private final List<Object> parts = new ArrayList<>(4);
    private ByteBuf current;
    private int inMemoryBytesLeft;
    /** Whether file-backed records are read into the buffers (TLS must encrypt them) rather than sent as regions. */
    private final boolean copyFiles;

    /** @param inMemoryBytes the bytes of the response that are not file regions, to size the buffers */
    NettyResponseSink(ByteBufAllocator allocator, int inMemoryBytes) {
        this(allocator, inMemoryBytes, false);
    }

    /**
     * @param inMemoryBytes the bytes of the response that are not file regions, to size the buffers
     * @param copyFiles read file-backed records into the response (a TLS connection) instead of zero-copy regions
     */
    NettyResponseSink(ByteBufAllocator allocator, int inMemoryBytes, boolean copyFiles) {
        this.copyFiles = copyFiles;
        this.allocator = allocator;
        this.inMemoryBytesLeft = inMemoryBytes;
        this.current = allocator.ioBuffer(Math.max(inMemoryBytes, 16));
    }

    /** The parts to write, in order. Call once, after encoding. */
    List<Object> finish() {
        if (current.isReadable() || parts.isEmpty()) {
            parts.add(current);
        } else {
            current.release();
        }
        current = null;
        return parts;
    }

    /** Releases everything encoded so far, after an encoding failure. */
    void discard() {
        for (Object part : parts) {
            io.netty.util.ReferenceCountUtil.release(part);
        }
        parts.clear();
        if (current != null) {
            current.release();
            current = null;
        }
    }

    @Override
    public void writeRecords(RecordsPayload payload) {
        if (payload instanceof FileSlicePayload slice && copyFiles) {
            copyInto(slice);
            return;
        }
        if (payload instanceof FileSlicePayload slice) {
            inMemoryBytesLeft -= current.readableBytes();
            parts.add(current);
            parts.add(new LogOwnedFileRegion(slice));
            current = allocator.ioBuffer(Math.max(inMemoryBytesLeft, 16));
            return;
        }
        payload.writeTo(this);
    }

    /** Reads a log slice into the current buffer: TLS encrypts from memory, so the file is read once here. */
    private void copyInto(FileSlicePayload slice) {
        int size = slice.sizeInBytes();
        current.ensureWritable(size);
        int copied = 0;
        try {
            while (copied < size) {
                int read = current.writeBytes(slice.channel(), slice.position() + copied, size - copied);
                if (read < 0) {
                    throw new UncheckedIOException(new EOFException("log slice ends " + (size - copied)
                            + " bytes early"));
                }
                copied += read;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void writeByte(byte value) {
        current.writeByte(value);
    }

    @Override
    public void writeShort(short value) {
        current.writeShort(value);
    }

    @Override
    public void writeInt(int value) {
        current.writeInt(value);
    }

    @Override
    public void writeLong(long value) {
        current.writeLong(value);
    }

    @Override
    public void writeDouble(double value) {
        current.writeDouble(value);
    }

    @Override
    public void writeBytes(byte[] source, int offset, int length) {
        current.writeBytes(source, offset, length);
    }

    @Override
    public void writeBytes(ByteBuffer source) {
        current.writeBytes(source.duplicate());
    }

    /**
     * A file region over a log segment's channel. Netty's {@link DefaultFileRegion} closes its channel when
     * released; the segment's channel is shared and owned by the log, so this one does not. Subclassing (rather
     * than a custom FileRegion) keeps epoll's native sendfile path, which recognises DefaultFileRegion.
     */
    private static final class LogOwnedFileRegion extends DefaultFileRegion {
        LogOwnedFileRegion(FileSlicePayload slice) {
            super(slice.channel(), slice.position(), slice.sizeInBytes());
        }

        @Override
        protected void deallocate() {
            // The log owns the channel and closes it when the segment is closed or deleted.
        }
    }
}
