package dev.cairn.broker.snapshot;

import dev.cairn.broker.log.SegmentExtent;
import dev.cairn.broker.partition.CommandFormatException;
import dev.cairn.broker.partition.PartitionSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives a leader's snapshot as a {@link SnapshotStream}, piece by piece, into {@code snapshot.TERM_INDEX.tmp},
 * and puts it in place, unapplied, once every byte arrived and checked out ({@link PartitionSnapshots#beginRestore}
 * starts one).
 *
 * <p>The bytes are routed as they arrive: the 4-byte header gives the manifest's length; the manifest is
 * collected (at most {@link PartitionSnapshots#MANIFEST_BYTES_MAX} bytes), its CRC32C checked and decoded, which
 * gives every segment's size; then each segment's bytes go straight to {@code segments/BASE.log}. Nothing beyond
 * the manifest and the caller's piece is held in memory.
 *
 * <p>Pieces come in order: a gap or an overlap is the caller's mistake and throws {@link IllegalStateException},
 * leaving the restore as it was. Bytes that cannot be a snapshot (a bad manifest length or CRC, a manifest that
 * does not decode, more bytes than the manifest says, or too few at {@link #finish}) throw
 * {@link SnapshotFormatException} and abandon the restore: its directory is deleted and nothing is installed.
 * Any other failure abandons it too. An abandoned or finished restore refuses further calls.
 *
 * <p>Not thread-safe: one thread (the group's loop) drives a restore.
 */
public final class SnapshotRestore {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRestore.class);

    private final PartitionSnapshots owner;
    private final Path tmp;
    private final Path target;
    private final long term;
    private final long index;
    private final ByteBuffer header = ByteBuffer.allocate(SnapshotStream.HEADER_BYTES);
    /** The manifest being collected; null before the header is complete and once it is decoded. */
    private ByteBuffer manifest;
    /** The decoded manifest; null until the manifest is complete. */
    private PartitionSnapshot state;
    /** The stream's length, known once the manifest is decoded; -1 before. */
    private long totalBytes = -1;
    /** The next stream offset expected. */
    private long position;
    /** The segment being written (index into the manifest's list), and how many of its bytes arrived. */
    private int segment;
    private long segmentWrittenBytes;
    private FileChannel segmentChannel;
    private boolean ended;

    SnapshotRestore(PartitionSnapshots owner, Path tmp, Path target, long term, long index) {
        this.owner = owner;
        this.tmp = tmp;
        this.target = target;
        this.term = term;
        this.index = index;
    }

    public long term() {
        return term;
    }

    public long index() {
        return index;
    }

    /** The next stream offset this restore expects. */
    public long nextOffset() {
        return position;
    }

    Path tmpDirectory() {
        return tmp;
    }

    /** Writes {@code data}, the stream's bytes from {@code offset}, which must be {@link #nextOffset}. */
    public void write(long offset, byte[] data) throws IOException {
        requireOpen();
        if (offset != position) {
            throw new IllegalStateException(target.getFileName() + ": restore expects offset " + position + ", got "
                    + offset + (offset > position ? " (a gap)" : " (an overlap)"));
        }
        try {
            ByteBuffer input = ByteBuffer.wrap(data);
            while (input.hasRemaining()) {
                if (header.hasRemaining()) {
                    takeHeader(input);
                } else if (state == null) {
                    takeManifest(input);
                } else {
                    takeSegment(input);
                }
            }
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /**
     * Checks that every byte arrived (the manifest's CRC32C as written, each segment exactly its size), fsyncs
     * the files and directories, and renames the snapshot into place, unapplied. Returns it; the caller then
     * installs it ({@link PartitionSnapshots#linkSegmentsInto}, {@link PartitionSnapshots#markApplied}).
     */
    public PartitionSnapshots.Stored finish() throws IOException {
        requireOpen();
        try {
            if (state == null || position != totalBytes) {
                throw new SnapshotFormatException(target.getFileName() + ": the stream ended after " + position
                        + " bytes, " + (totalBytes < 0 ? "before its manifest" : totalBytes + " expected"));
            }
            SnapshotIo.checkManifestFile(tmp.resolve(PartitionSnapshots.MANIFEST));
            for (SegmentExtent extent : state.segments()) {
                Path file = PartitionSnapshots.segmentPath(tmp, extent.baseOffset());
                long size = Files.size(file);
                if (size != extent.sizeBytes()) {
                    throw new SnapshotFormatException(file + " holds " + size + " bytes, the manifest says "
                            + extent.sizeBytes());
                }
            }
            SnapshotIo.fsyncDirectory(tmp.resolve(PartitionSnapshots.SEGMENTS));
            SnapshotIo.fsyncDirectory(tmp);
            PartitionSnapshots.Stored stored = owner.installRestored(this, tmp, target, state);
            ended = true;
            return stored;
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /** Abandons the restore: its directory is deleted. Does nothing once it ended. */
    public void abort() {
        if (ended) {
            return;
        }
        ended = true;
        closeSegment();
        try {
            SnapshotIo.deleteRecursively(tmp);
        } catch (IOException e) {
            LOG.warn("could not delete the abandoned restore {}; the next cleanup retries", tmp, e);
        }
        owner.restoreEnded(this);
    }

    private void requireOpen() {
        if (ended) {
            throw new IllegalStateException(target.getFileName() + ": this restore already ended");
        }
    }

    private void takeHeader(ByteBuffer input) throws SnapshotFormatException {
        position += transfer(input, header);
        if (header.hasRemaining()) {
            return;
        }
        int manifestBytes = header.getInt(0);
        if (manifestBytes < SnapshotIo.CRC_BYTES || manifestBytes > PartitionSnapshots.MANIFEST_BYTES_MAX) {
            throw new SnapshotFormatException(target.getFileName() + ": a manifest of " + manifestBytes
                    + " bytes (" + SnapshotIo.CRC_BYTES + ".." + PartitionSnapshots.MANIFEST_BYTES_MAX + " allowed)");
        }
        manifest = ByteBuffer.allocate(manifestBytes);
    }

    private void takeManifest(ByteBuffer input) throws IOException {
        position += transfer(input, manifest);
        if (manifest.hasRemaining()) {
            return;
        }
        byte[] bytes = manifest.array();
        manifest = null;
        if (!SnapshotIo.crcMatches(bytes)) {
            throw new SnapshotFormatException(target.getFileName() + ": manifest CRC32C mismatch");
        }
        PartitionSnapshot decoded;
        try {
            decoded = PartitionSnapshot.decode(ByteBuffer.wrap(bytes, 0, bytes.length - SnapshotIo.CRC_BYTES));
        } catch (CommandFormatException e) {
            throw new SnapshotFormatException(target.getFileName() + ": the manifest does not decode", e);
        }
        long segmentBytes = 0;
        long previousBase = -1;
        for (SegmentExtent extent : decoded.segments()) {
            if (extent.baseOffset() <= previousBase) {
                throw new SnapshotFormatException(target.getFileName() + ": segment " + extent.baseOffset()
                        + " follows " + previousBase + " in the manifest");
            }
            previousBase = extent.baseOffset();
            segmentBytes += extent.sizeBytes();
        }
        SnapshotIo.writeDurably(tmp.resolve(PartitionSnapshots.MANIFEST), bytes);
        state = decoded;
        totalBytes = SnapshotStream.HEADER_BYTES + bytes.length + segmentBytes;
        segment = -1;
        nextSegment();
    }

    private void takeSegment(ByteBuffer input) throws IOException {
        List<SegmentExtent> segments = state.segments();
        if (segment >= segments.size()) {
            throw new SnapshotFormatException(target.getFileName() + ": the stream goes on past offset " + position
                    + ", where its manifest says it ends");
        }
        long sizeBytes = segments.get(segment).sizeBytes();
        int count = (int) Math.min(input.remaining(), sizeBytes - segmentWrittenBytes);
        ByteBuffer piece = input.slice(input.position(), count);
        SnapshotIo.writeFully(segmentChannel, piece);
        input.position(input.position() + count);
        segmentWrittenBytes += count;
        position += count;
        if (segmentWrittenBytes == sizeBytes) {
            segmentChannel.force(true);
            closeSegment();
            nextSegment();
        }
    }

    /** Moves to the next segment with bytes to come, creating the (empty) files of any empty ones on the way. */
    private void nextSegment() throws IOException {
        List<SegmentExtent> segments = state.segments();
        while (++segment < segments.size()) {
            SegmentExtent extent = segments.get(segment);
            segmentWrittenBytes = 0;
            segmentChannel = FileChannel.open(PartitionSnapshots.segmentPath(tmp, extent.baseOffset()),
                    StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            if (extent.sizeBytes() > 0) {
                return;
            }
            segmentChannel.force(true);
            closeSegment();
        }
    }

    private void closeSegment() {
        FileChannel channel = segmentChannel;
        segmentChannel = null;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("closing a restored segment of {} failed", tmp, e);
            }
        }
    }

    private static int transfer(ByteBuffer from, ByteBuffer to) {
        int count = Math.min(from.remaining(), to.remaining());
        to.put(from.slice(from.position(), count));
        from.position(from.position() + count);
        return count;
    }
}
