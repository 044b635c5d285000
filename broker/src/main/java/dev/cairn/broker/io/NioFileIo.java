package dev.cairn.broker.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The real {@link FileIo}: {@link FileChannel} positional I/O on the local file system. */
public final class NioFileIo implements FileIo {
    @Override
    public FileHandle open(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        return new NioFileHandle(path, channel);
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return Files.size(path);
    }

    @Override
    public List<Path> list(Path directory) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> entries = Files.list(directory)) {
            entries.filter(Files::isRegularFile).forEach(files::add);
        }
        files.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return files;
    }

    @Override
    public void createDirectories(Path directory) throws IOException {
        Files.createDirectories(directory);
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void fsyncDirectory(Path directory) throws IOException {
        // Opening a directory for reading and forcing it is how the JDK reaches fsync(2) on a directory
        // on Linux and macOS; Windows refuses, and there the rename itself is durable enough.
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name", "").startsWith("Windows")) {
                throw e;
            }
        }
    }

    private static final class NioFileHandle implements FileHandle {
        private final Path path;
        private final FileChannel channel;

        NioFileHandle(Path path, FileChannel channel) {
            this.path = path;
            this.channel = channel;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public void write(ByteBuffer source, long position) throws IOException {
            long at = position;
            while (source.hasRemaining()) {
                at += channel.write(source, at);
            }
        }

        @Override
        public int read(ByteBuffer target, long position) throws IOException {
            return channel.read(target, position);
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public void truncate(long sizeBytes) throws IOException {
            channel.truncate(sizeBytes);
        }

        @Override
        public void force() throws IOException {
            channel.force(true);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            long done = 0;
            while (done < count) {
                long n = channel.transferTo(position + done, count - done, target);
                if (n <= 0) {
                    break;
                }
                done += n;
            }
            return done;
        }

        @Override
        public FileChannel fileChannel() {
            return channel;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
