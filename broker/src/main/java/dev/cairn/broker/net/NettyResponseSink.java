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
 * A {@link Writable} that encodes a response into pooled buffers of at most {@link #CHUNK_BYTES} each and passes
 * file-backed records through as zero-copy file regions. The result is an ordered list of {@link ByteBuf} and
 * {@link DefaultFileRegion} parts that the channel writes one after the other.
 *
 * <p>Buffers are bounded because the response's size counts its file-backed records too: a fetch response of 8 MiB
 * of records is a few hundred bytes in memory. Sized by the whole frame, each buffer was as large as the records
 * still to come, so a fetch of N partitions allocated N unpooled direct buffers of up to the response's size.
 */
final class NettyResponseSink implements Writable {
    /** The largest buffer the sink allocates; a response is written into as many as it needs. */
    static final int CHUNK_BYTES = 64 * 1024;
    private static final int CHUNK_BYTES_MIN = 16;

    private final ByteBufAllocator allocator;
    private final List<Object> parts = new ArrayList<>(4);
    private ByteBuf current;
    /** The frame's bytes not yet written (buffers and regions), to size the next buffer. */
    private long bytesLeft;
    /** Whether file-backed records are read into the buffers (TLS must encrypt them) rather than sent as regions. */
    private final boolean copyFiles;

    /** @param frameBytes the bytes of the response frame, to size the buffers */
    NettyResponseSink(ByteBufAllocator allocator, int frameBytes) {
        this(allocator, frameBytes, false);
    }

    /**
     * @param frameBytes the bytes of the response frame, to size the buffers
     * @param copyFiles read file-backed records into the response (a TLS connection) instead of zero-copy regions
     */
    NettyResponseSink(ByteBufAllocator allocator, int frameBytes, boolean copyFiles) {
        this.copyFiles = copyFiles;
        this.allocator = allocator;
        this.bytesLeft = frameBytes;
        this.current = allocator.ioBuffer(nextChunkBytes());
    }

    private int nextChunkBytes() {
        return (int) Math.max(CHUNK_BYTES_MIN, Math.min(CHUNK_BYTES, bytesLeft));
    }

    /** Makes room for {@code bytes} (at most {@link #CHUNK_BYTES}) in the current buffer, or starts a new one. */
    private ByteBuf room(int bytes) {
        if (current.writableBytes() < bytes) {
            nextBuffer();
        }
        return current;
    }

    private void nextBuffer() {
        if (current.isReadable()) {
            bytesLeft -= current.readableBytes();
            parts.add(current);
        } else {
            current.release();
        }
        current = allocator.ioBuffer(nextChunkBytes());
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
            nextBuffer();
            parts.add(new LogOwnedFileRegion(slice));
            bytesLeft -= slice.sizeInBytes();
            return;
        }
        payload.writeTo(this);
    }

    /** Reads a log slice into the buffers: TLS encrypts from memory, so the file is read once here. */
    private void copyInto(FileSlicePayload slice) {
        int size = slice.sizeInBytes();
        int copied = 0;
        try {
            while (copied < size) {
                ByteBuf target = room(1);
                int read = target.writeBytes(slice.channel(), slice.position() + copied,
                        Math.min(size - copied, target.writableBytes()));
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
        room(Byte.BYTES).writeByte(value);
    }

    @Override
    public void writeShort(short value) {
        room(Short.BYTES).writeShort(value);
    }

    @Override
    public void writeInt(int value) {
        room(Integer.BYTES).writeInt(value);
    }

    @Override
    public void writeLong(long value) {
        room(Long.BYTES).writeLong(value);
    }

    @Override
    public void writeDouble(double value) {
        room(Double.BYTES).writeDouble(value);
    }

    @Override
    public void writeBytes(byte[] source, int offset, int length) {
        int written = 0;
        while (written < length) {
            ByteBuf target = room(1);
            int piece = Math.min(length - written, target.writableBytes());
            target.writeBytes(source, offset + written, piece);
            written += piece;
        }
    }

    @Override
    public void writeBytes(ByteBuffer source) {
        ByteBuffer rest = source.duplicate();
        while (rest.hasRemaining()) {
            ByteBuf target = room(1);
            int piece = Math.min(rest.remaining(), target.writableBytes());
            target.writeBytes(rest.duplicate().limit(rest.position() + piece));
            rest.position(rest.position() + piece);
        }
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
