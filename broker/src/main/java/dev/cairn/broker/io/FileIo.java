package dev.cairn.broker.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * All file access of the storage engine goes through this interface, so that tests can substitute a
 * fault-injecting, in-memory file system (style.md point 12). {@link NioFileIo} is the real implementation.
 *
 * <p>Contract for implementations: {@link #open} creates missing files; {@link #list} returns the regular
 * files of a directory sorted by name; {@link #atomicMove} replaces the target atomically; a directory
 * fsync makes creations, renames and deletions in that directory durable. Failures are reported as
 * {@link IOException}; a full disk carries {@link StorageException#DISK_FULL_MESSAGE} in its message.
 */
public interface FileIo {
    /** Opens (creating if absent) a file for positional reads and writes. */
    FileHandle open(Path path) throws IOException;

    boolean exists(Path path);

    /** The size in bytes of a file. */
    long size(Path path) throws IOException;

    /** The regular files directly inside {@code directory}, sorted by file name. */
    List<Path> list(Path directory) throws IOException;

    void createDirectories(Path directory) throws IOException;

    /** Deletes a file if it exists. */
    void delete(Path path) throws IOException;

    /** Renames {@code source} to {@code target} atomically, replacing the target. */
    void atomicMove(Path source, Path target) throws IOException;

    /** Makes the directory's entries (creations, renames, deletions) durable. */
    void fsyncDirectory(Path directory) throws IOException;
}
