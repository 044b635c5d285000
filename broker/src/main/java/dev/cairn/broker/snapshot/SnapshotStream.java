package dev.cairn.broker.snapshot;

import dev.cairn.broker.log.SegmentExtent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One stored snapshot as a byte stream, for shipping it over the network without materializing it:
 *
 * <pre>
 * offset 0                  int32 (big-endian)   manifestBytes: the manifest file's length, CRC included
 * offset 4                  manifestBytes        the manifest file: PartitionSnapshot bytes, then their CRC32C
 * offset 4 + manifestBytes  segments[0].sizeBytes  the prefix of segment 0 the manifest records
 * ...                       segments[i].sizeBytes  the prefix of segment i, in the manifest's order
 * </pre>
 *
 * The total is {@code 4 + manifestBytes + sum(sizeBytes)}. Each piece is read straight from the snapshot's files
 * (the manifest and the hard links to the segments); the active segment's link may have grown since, and only its
 * recorded prefix is part of the stream. The manifest comes first so that a receiver ({@link SnapshotRestore})
 * knows every segment's size before its bytes arrive. The segment bytes carry no checksum of their own here: the
 * record batches in them carry theirs, which the log checks when it recovers.
 *
 * <p>A legacy single-file snapshot has no stream (it cannot be shipped).
 */
public final class SnapshotStream {
    /** The stream's header: the manifest's length as an int32. */
    public static final int HEADER_BYTES = Integer.BYTES;

    private SnapshotStream() {
    }

    /** The stream's length in bytes. */
    public static long totalBytes(PartitionSnapshots.Stored snapshot) throws IOException {
        return HEADER_BYTES + manifestBytes(snapshot) + segmentBytes(snapshot);
    }

    /**
     * Up to {@code maxBytes} of {@code snapshot}'s stream from {@code offset}: fewer only where the stream ends,
     * none at its end.
     *
     * @throws IllegalArgumentException for a legacy snapshot, a negative {@code maxBytes}, or an offset outside
     *     {@code 0..totalBytes}
     * @throws IOException when the snapshot's files cannot be read, are gone (cleaned up) or are shorter than
     *     the manifest says
     */
    public static byte[] read(PartitionSnapshots.Stored snapshot, long offset, int maxBytes) throws IOException {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " is negative");
        }
        int manifestBytes = manifestBytes(snapshot);
        long total = HEADER_BYTES + manifestBytes + segmentBytes(snapshot);
        if (offset < 0 || offset > total) {
            throw new IllegalArgumentException("offset " + offset + " is outside " + snapshot.path()
                    + "'s stream of " + total + " bytes");
        }
        byte[] out = new byte[(int) Math.min(maxBytes, total - offset)];
        ByteBuffer destination = ByteBuffer.wrap(out);
        long position = offset;
        if (position < HEADER_BYTES && destination.hasRemaining()) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).putInt(manifestBytes).flip();
            header.position((int) position);
            header.limit(Math.min(HEADER_BYTES, header.position() + destination.remaining()));
            position += header.remaining();
            destination.put(header);
        }
        long regionStart = HEADER_BYTES;
        position = copyRegion(snapshot.manifestFile(), regionStart, manifestBytes, position, destination);
        regionStart += manifestBytes;
        for (SegmentExtent segment : snapshot.state().segments()) {
            if (!destination.hasRemaining()) {
                break;
            }
            position = copyRegion(snapshot.segmentFile(segment.baseOffset()), regionStart, segment.sizeBytes(),
                    position, destination);
            regionStart += segment.sizeBytes();
        }
        if (destination.hasRemaining()) {
            throw new IllegalStateException("read " + destination.position() + " of " + out.length + " bytes of "
                    + snapshot.path() + "'s stream at " + offset);
        }
        return out;
    }

    /**
     * Copies what {@code destination} has room for of the region {@code [regionStart, regionStart + regionBytes)}
     * of the stream, which is the start of {@code file}, from stream position {@code position}; returns the new
     * position.
     */
    private static long copyRegion(Path file, long regionStart, long regionBytes, long position,
            ByteBuffer destination) throws IOException {
        long regionEnd = regionStart + regionBytes;
        if (position >= regionEnd || !destination.hasRemaining()) {
            return position;
        }
        int count = (int) Math.min(destination.remaining(), regionEnd - position);
        ByteBuffer slice = destination.slice(destination.position(), count);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            SnapshotIo.readFully(channel, slice, position - regionStart, file);
        }
        destination.position(destination.position() + count);
        return position + count;
    }

    private static int manifestBytes(PartitionSnapshots.Stored snapshot) throws IOException {
        if (snapshot.legacy()) {
            throw new IllegalArgumentException(snapshot.path() + " is a legacy snapshot: it has no stream");
        }
        long size = Files.size(snapshot.manifestFile());
        if (size < SnapshotIo.CRC_BYTES || size > PartitionSnapshots.MANIFEST_BYTES_MAX) {
            throw new SnapshotFormatException(snapshot.manifestFile() + ": a manifest of " + size + " bytes");
        }
        return (int) size;
    }

    private static long segmentBytes(PartitionSnapshots.Stored snapshot) {
        long bytes = 0;
        for (SegmentExtent segment : snapshot.state().segments()) {
            bytes += segment.sizeBytes();
        }
        return bytes;
    }
}
