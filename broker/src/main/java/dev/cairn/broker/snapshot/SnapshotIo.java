package dev.cairn.broker.snapshot;

import dev.cairn.broker.io.Directories;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** File operations the snapshot store and the restore writer share: manifests, durable writes, links, deletes. */
final class SnapshotIo {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotIo.class);
    /** The CRC32C that ends a manifest file. */
    static final int CRC_BYTES = 4;
    /** The buffer a manifest file's CRC is checked through, so the check allocates no manifest-sized array. */
    private static final int CRC_READ_BYTES = 64 * 1024;

    private SnapshotIo() {
    }

    /** The manifest file's bytes: {@code payload} followed by its CRC32C. */
    static byte[] manifestBytes(byte[] payload) {
        return ByteBuffer.allocate(payload.length + CRC_BYTES).put(payload).putInt(crc(payload, payload.length))
                .array();
    }

    /** Whether {@code manifest} (payload then CRC32C, all of the array) ends with its payload's checksum. */
    static boolean crcMatches(byte[] manifest) {
        int payloadBytes = manifest.length - CRC_BYTES;
        return payloadBytes >= 0 && crc(manifest, payloadBytes) == ByteBuffer.wrap(manifest, payloadBytes,
                CRC_BYTES).getInt();
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /**
     * The payload of the manifest file {@code file} once its size and CRC are checked; a refusal is a
     * {@link SnapshotFormatException}.
     */
    static byte[] readManifest(Path file) throws IOException {
        long size = Files.size(file);
        if (size < CRC_BYTES || size > PartitionSnapshots.MANIFEST_BYTES_MAX) {
            throw new SnapshotFormatException(file + ": a manifest of " + size + " bytes (" + CRC_BYTES + ".."
                    + PartitionSnapshots.MANIFEST_BYTES_MAX + " allowed)");
        }
        byte[] all = Files.readAllBytes(file);
        if (!crcMatches(all)) {
            throw new SnapshotFormatException(file + ": manifest CRC32C mismatch");
        }
        byte[] payload = new byte[all.length - CRC_BYTES];
        System.arraycopy(all, 0, payload, 0, payload.length);
        return payload;
    }

    /** Checks the manifest file's CRC32C while reading it through a small buffer. */
    static void checkManifestFile(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < CRC_BYTES || size > PartitionSnapshots.MANIFEST_BYTES_MAX) {
                throw new SnapshotFormatException(file + ": a manifest of " + size + " bytes");
            }
            CRC32C crc = new CRC32C();
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CRC_READ_BYTES, size));
            long payloadBytes = size - CRC_BYTES;
            long position = 0;
            while (position < payloadBytes) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), payloadBytes - position));
                readFully(channel, buffer, position, file);
                crc.update(buffer.flip());
                position += buffer.limit();
            }
            buffer.clear().limit(CRC_BYTES);
            readFully(channel, buffer, payloadBytes, file);
            if ((int) crc.getValue() != buffer.flip().getInt()) {
                throw new SnapshotFormatException(file + ": manifest CRC32C mismatch");
            }
        }
    }

    /** Fills {@code buffer} from {@code channel} at {@code position}, or fails if the file ends first. */
    static void readFully(FileChannel channel, ByteBuffer buffer, long position, Path file) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, at);
            if (read < 0) {
                throw new SnapshotFormatException(file + " ends at " + at + " bytes, " + (at + buffer.remaining())
                        + " needed");
            }
            at += read;
        }
    }

    /** Writes all of {@code bytes} to {@code channel} at its position. */
    static void writeFully(FileChannel channel, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /** Creates or replaces {@code file} with {@code bytes}, fsynced. */
    static void writeDurably(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(channel, ByteBuffer.wrap(bytes));
            channel.force(true);
        }
    }

    static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Makes {@code target} hold the first {@code bytes} bytes of {@code source}: a hard link when both are on
     * one file system (the extra bytes of a longer source are then shared, and ignored by readers that go by the
     * manifest), otherwise a copy of exactly that prefix, fsynced.
     */
    static void linkOrCopy(Path source, Path target, long bytes) throws IOException {
        try {
            Files.createLink(target, source);
            return;
        } catch (UnsupportedOperationException | FileSystemException e) {
            LOG.debug("cannot hard-link {} to {} ({}); copying", source, target, e.toString());
        }
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long position = 0;
            while (position < bytes) {
                long moved = in.transferTo(position, bytes - position, out);
                if (moved <= 0) {
                    throw new IOException(source + " ended at " + position + " bytes, " + bytes + " expected");
                }
                position += moved;
            }
            out.force(true);
        }
    }

    /** Deletes {@code path} and, if it is a directory, everything under it; nothing when it does not exist. */
    static void deleteRecursively(Path path) throws IOException {
        Directories.deleteRecursively(path);
    }
}
