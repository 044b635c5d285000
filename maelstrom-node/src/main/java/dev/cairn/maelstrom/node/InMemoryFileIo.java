package dev.cairn.maelstrom.node;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.FileIo;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A heap-only {@link FileIo} for the Maelstrom node. Maelstrom never restarts a node (maelstrom.md 6), so
 * nothing has to survive the process: files are growable byte arrays, fsyncs are no-ops, and a rename is a map
 * update. Directories are implicit (a file's parent); {@link #createDirectories} only records them so that
 * {@link #list} of an empty directory works.
 *
 * <p>Thread safety: each file's methods are synchronized on the file, so the log's single writer and its readers
 * on other threads see whole writes.
 */
public final class InMemoryFileIo implements FileIo {
    /** One file may not grow past this; the log's segments and indexes stay far below it. */
    public static final long FILE_BYTES_MAX = Integer.MAX_VALUE - 8;
    private static final int INITIAL_CAPACITY_BYTES = 4096;

    private final ConcurrentMap<Path, MemoryFile> files = new ConcurrentHashMap<>();
    private final ConcurrentMap<Path, Boolean> directories = new ConcurrentHashMap<>();

    @Override
    public FileHandle open(Path path) {
        return new Handle(path, files.computeIfAbsent(path, p -> new MemoryFile()));
    }

    @Override
    public boolean exists(Path path) {
        return files.containsKey(path) || directories.containsKey(path);
    }

    @Override
    public long size(Path path) throws IOException {
        MemoryFile file = files.get(path);
        if (file == null) {
            throw new FileNotFoundException(path.toString());
        }
        return file.size();
    }

    @Override
    public List<Path> list(Path directory) {
        List<Path> children = new ArrayList<>();
        for (Path path : files.keySet()) {
            if (directory.equals(path.getParent())) {
                children.add(path);
            }
        }
        children.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return children;
    }

    @Override
    public void createDirectories(Path directory) {
        for (Path d = directory; d != null; d = d.getParent()) {
            directories.put(d, Boolean.TRUE);
        }
    }

    @Override
    public void delete(Path path) {
        files.remove(path);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        MemoryFile file = files.remove(source);
        if (file == null) {
            throw new FileNotFoundException(source.toString());
        }
        files.put(target, file);
    }

    @Override
    public void fsyncDirectory(Path directory) {
        // Nothing is durable beyond the process, and nothing needs to be.
    }

    /** The bytes of one file; handles opened on the same path share it. */
    private static final class MemoryFile {
        private byte[] bytes = new byte[0];
        private int size;

        synchronized long size() {
            return size;
        }

        synchronized void write(ByteBuffer source, long position) throws IOException {
            long end = position + source.remaining();
            if (position < 0 || end > FILE_BYTES_MAX) {
                throw new IOException("write of " + source.remaining() + " bytes at " + position
                        + " outside [0, " + FILE_BYTES_MAX + "]");
            }
            ensureCapacity((int) end);
            if (position > size) {
                Arrays.fill(bytes, size, (int) position, (byte) 0);
            }
            source.get(bytes, (int) position, source.remaining());
            size = Math.max(size, (int) end);
        }

        private void ensureCapacity(int needed) {
            if (needed <= bytes.length) {
                return;
            }
            long grown = Math.max((long) bytes.length * 2, INITIAL_CAPACITY_BYTES);
            bytes = Arrays.copyOf(bytes, (int) Math.min(FILE_BYTES_MAX, Math.max(grown, needed)));
        }

        synchronized int read(ByteBuffer target, long position) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(target.remaining(), size - position);
            target.put(bytes, (int) position, n);
            return n;
        }

        synchronized void truncate(long sizeBytes) {
            if (sizeBytes < size) {
                size = (int) sizeBytes;
            }
        }

        synchronized byte[] copy(long position, int count) {
            return Arrays.copyOfRange(bytes, (int) position, (int) position + count);
        }
    }

    private static final class Handle implements FileHandle {
        private final Path path;
        private final MemoryFile file;

        Handle(Path path, MemoryFile file) {
            this.path = path;
            this.file = file;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public void write(ByteBuffer source, long position) throws IOException {
            file.write(source, position);
        }

        @Override
        public int read(ByteBuffer target, long position) {
            return file.read(target, position);
        }

        @Override
        public long size() {
            return file.size();
        }

        @Override
        public void truncate(long sizeBytes) {
            file.truncate(sizeBytes);
        }

        @Override
        public void force() {
            // In memory: nothing to make durable.
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            long available = Math.max(0, Math.min(count, file.size() - position));
            ByteBuffer bytes = ByteBuffer.wrap(file.copy(position, (int) available));
            long done = 0;
            while (bytes.hasRemaining()) {
                int n = target.write(bytes);
                if (n <= 0) {
                    break;
                }
                done += n;
            }
            return done;
        }

        @Override
        public FileChannel fileChannel() {
            return null;
        }

        @Override
        public void close() {
            // The bytes belong to the file system, not to the handle.
        }
    }
}
