package dev.cairn.broker;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import dev.cairn.broker.io.NioFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * The real file system, with a hook before each change to a file's bytes: tests extend it to hold writes
 * (SlowPartitionIT) or fail them (FailingFileIo), as a slow or failing disk would.
 */
abstract class ForwardingFileIo implements FileIo {
    private final FileIo disk = new NioFileIo();

    /** Runs before a write to {@code path}; may block or throw. */
    abstract void beforeWrite(Path path) throws IOException;

    /** Runs before a truncation of {@code path}; nothing by default. */
    void beforeTruncate(Path path) throws IOException {
    }

    /** Runs before an fsync of {@code path}; nothing by default. */
    void beforeForce(Path path) throws IOException {
    }

    @Override
    public FileHandle open(Path path) throws IOException {
        FileHandle file = disk.open(path);
        return new FileHandle() {
            @Override
            public Path path() {
                return file.path();
            }

            @Override
            public void write(ByteBuffer source, long position) throws IOException {
                beforeWrite(path);
                file.write(source, position);
            }

            @Override
            public int read(ByteBuffer target, long position) throws IOException {
                return file.read(target, position);
            }

            @Override
            public long size() throws IOException {
                return file.size();
            }

            @Override
            public void truncate(long sizeBytes) throws IOException {
                beforeTruncate(path);
                file.truncate(sizeBytes);
            }

            @Override
            public void force() throws IOException {
                beforeForce(path);
                file.force();
            }

            @Override
            public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
                return file.transferTo(position, count, target);
            }

            @Override
            public FileChannel fileChannel() {
                return file.fileChannel();
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    @Override
    public boolean exists(Path path) {
        return disk.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return disk.size(path);
    }

    @Override
    public List<Path> list(Path directory) throws IOException {
        return disk.list(directory);
    }

    @Override
    public void createDirectories(Path directory) throws IOException {
        disk.createDirectories(directory);
    }

    @Override
    public void delete(Path path) throws IOException {
        disk.delete(path);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        disk.atomicMove(source, target);
    }

    @Override
    public void fsyncDirectory(Path directory) throws IOException {
        disk.fsyncDirectory(directory);
    }
}
