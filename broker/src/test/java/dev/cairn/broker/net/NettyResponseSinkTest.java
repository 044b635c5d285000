package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.api.FileSlicePayload;
import dev.cairn.protocol.wire.ByteBufferWritable;
import dev.cairn.protocol.wire.Writable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The response sink writes a frame into buffers of at most {@link NettyResponseSink#CHUNK_BYTES}, whatever the size of
 * the records in it: file-backed records go out as regions (or, for TLS, are read into the buffers), and the bytes
 * on the wire are the frame's, in order.
 */
class NettyResponseSinkTest {
    private static final int SLICE_BYTES = 1 << 20;
    @TempDir
    Path dir;

    @Test
    void aLargeFetchIsSentFromSmallBuffersAndFileRegions() throws IOException {
        try (FileChannel file = segment()) {
            List<Object> parts = encode(file, false);
            long regions = parts.stream().filter(DefaultFileRegion.class::isInstance).count();
            assertEquals(3, regions, "each slice goes out as a zero-copy region");
            assertSmallBuffers(parts);
            assertArrayEquals(expected(file), wireBytes(parts, file));
        }
    }

    @Test
    void overTlsTheRecordsAreReadIntoSmallBuffers() throws IOException {
        try (FileChannel file = segment()) {
            List<Object> parts = encode(file, true);
            assertTrue(parts.stream().allMatch(ByteBuf.class::isInstance), "TLS encrypts from memory");
            assertSmallBuffers(parts);
            assertArrayEquals(expected(file), wireBytes(parts, file));
        }
    }

    private FileChannel segment() throws IOException {
        byte[] bytes = new byte[3 * SLICE_BYTES];
        new Random(42).nextBytes(bytes);
        Path path = dir.resolve("00000000000000000000.log");
        Files.write(path, bytes);
        return FileChannel.open(path, StandardOpenOption.READ);
    }

    /** A fetch-like frame: a header, three 1 MiB slices with fields between them, and bytes spanning buffers. */
    private static void writeFrame(Writable out, FileChannel file) {
        out.writeInt(3 * SLICE_BYTES + 200_000);
        out.writeLong(7L);
        for (int i = 0; i < 3; i++) {
            out.writeShort((short) i);
            out.writeRecords(slice(file, (long) i * SLICE_BYTES));
            out.writeByte((byte) 1);
        }
        byte[] blob = new byte[150_000];
        new Random(7).nextBytes(blob);
        out.writeBytes(blob, 10, 100_000);
        out.writeBytes(ByteBuffer.wrap(blob, 0, 99_000));
        out.writeDouble(2.5);
    }

    private static List<Object> encode(FileChannel file, boolean copyFiles) {
        int frameBytes = expectedSize();
        NettyResponseSink sink = new NettyResponseSink(PooledByteBufAllocator.DEFAULT, frameBytes, copyFiles);
        writeFrame(sink, file);
        return sink.finish();
    }

    private static int expectedSize() {
        return 4 + 8 + 3 * (2 + SLICE_BYTES + 1) + 100_000 + 99_000 + 8;
    }

    private static byte[] expected(FileChannel file) {
        ByteBufferWritable out = new ByteBufferWritable(ByteBuffer.allocate(expectedSize()));
        writeFrame(out, file);
        assertEquals(0, out.buffer().remaining());
        return out.buffer().array();
    }

    private static void assertSmallBuffers(List<Object> parts) {
        for (Object part : parts) {
            if (part instanceof ByteBuf buffer) {
                assertTrue(buffer.capacity() <= NettyResponseSink.CHUNK_BYTES, "a buffer of " + buffer.capacity());
            }
        }
    }

    private static byte[] wireBytes(List<Object> parts, FileChannel file) throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof ByteBuf buffer) {
                buffer.readBytes(wire, buffer.readableBytes());
            } else if (part instanceof DefaultFileRegion region) {
                file.transferTo(region.position(), region.count(), Channels.newChannel(wire));
            }
            ReferenceCountUtil.release(part);
        }
        return wire.toByteArray();
    }

    private static FileSlicePayload slice(FileChannel file, long position) {
        return new FileSlicePayload() {
            @Override
            public FileChannel channel() {
                return file;
            }

            @Override
            public long position() {
                return position;
            }

            @Override
            public int sizeInBytes() {
                return SLICE_BYTES;
            }

            @Override
            public void writeTo(Writable out) {
                ByteBuffer bytes = ByteBuffer.allocate(SLICE_BYTES);
                try {
                    file.read(bytes, position);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                out.writeBytes(bytes.flip());
            }
        };
    }
}
