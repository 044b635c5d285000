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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real file system, except that once {@link #failWritesIn} names a directory (a partition's, e.g.
 * {@code orders-0}), every write to a file in it fails, as on a disk that died under that log; or, after
 * {@link #failForcesIn}, only its fsyncs fail.
 */
final class FailingFileIo implements FileIo {
    private final FileIo disk = new NioFileIo();
    private volatile String failingDirectory;
    private volatile String failingForcesDirectory;
    private final AtomicInteger failedWrites = new AtomicInteger();

    /** From now on, writes to files directly in a directory of this name fail. */
    void failWritesIn(String directoryName) {
        failingDirectory = directoryName;
    }

    /** From now on, fsyncs of files directly in a directory of this name fail (writes still succeed). */
    void failForcesIn(String directoryName) {
        failingForcesDirectory = directoryName;
    }

    /** Writes and fsyncs refused so far. */
    int failedWrites() {
        return failedWrites.get();
    }

    private void check(Path path) throws IOException {
        check(path, failingDirectory);
    }

    private void check(Path path, String failing) throws IOException {
        Path parent = path.getParent();
        if (failing != null && parent != null && parent.getFileName().toString().equals(failing)) {
            failedWrites.incrementAndGet();
            throw new IOException("injected disk failure: writes to " + parent + " fail");
        }
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
                check(path);
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
                check(path);
                file.truncate(sizeBytes);
            }

            @Override
            public void force() throws IOException {
                check(path);
                check(path, failingForcesDirectory);
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
