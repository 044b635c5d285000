package dev.cairn.broker.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * An in-memory, fault-injecting {@link FileIo} for tests and the simulator (style.md point 13).
 *
 * <p>Crash model. Each file has durable contents (as of its last {@code force}) and a list of operations
 * (writes, truncations) issued since. {@link #crash()} keeps, per file, a random prefix of those
 * operations, the last one possibly torn at a random byte, and forgets the rest, as a disk that wrote back
 * some pages in order before power failed. Every handle opened before the crash is dead afterwards.
 * Directory operations (create, delete, rename) are modelled as immediately durable and atomic, like a
 * journaling file system whose directory fsync was issued; {@link #fsyncDirectory} is counted only.
 *
 * <p>Faults on demand: {@link #setCapacityBytes} makes writes past the capacity write the prefix that fits
 * and fail with ENOSPC ({@link StorageException#DISK_FULL_MESSAGE}); {@link #failNext} makes the next calls
 * of one operation fail with EIO. All methods are synchronized: fetch readers may run on other threads.
 */
public final class SimulatedFileIo implements FileIo {
    /** Operations that {@link #failNext} can make fail. */
    public enum Operation { WRITE, READ, FORCE, TRUNCATE, OPEN }

    public static final String EIO_MESSAGE = "Input/output error (simulated)";

    private final Random random;
    private final Map<Path, Inode> files = new HashMap<>();
    private final Set<Path> directories = new HashSet<>();
    private final Map<Operation, Integer> failures = new EnumMap<>(Operation.class);
    private long capacityBytes = Long.MAX_VALUE;
    private long mutations;
    private long crashAtMutation = Long.MAX_VALUE;
    private int generation;
    private long directoryFsyncs;
    private long forces;

    public SimulatedFileIo(long seed) {
        this.random = new Random(mix(seed));
    }

    /**
     * SplitMix64's finalizer: java.util.Random's first outputs are correlated for neighbouring seeds, and
     * simulations use consecutive seeds.
     */
    public static long mix(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public synchronized void setCapacityBytes(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    /** Bytes currently held by all files (what counts against the capacity). */
    public synchronized long usedBytes() {
        long used = 0;
        for (Inode inode : files.values()) {
            used += inode.size;
        }
        return used;
    }

    /** Makes the next {@code count} calls of {@code operation} fail with EIO. */
    public synchronized void failNext(Operation operation, int count) {
        failures.put(operation, count);
    }

    /** How many injected failures of {@code operation} have not fired yet. */
    public synchronized int pendingFailures(Operation operation) {
        return failures.getOrDefault(operation, 0);
    }

    public synchronized long directoryFsyncs() {
        return directoryFsyncs;
    }

    public synchronized long forces() {
        return forces;
    }

    /** Power loss: unflushed operations are lost except a random prefix, whose last write may be torn. */
    public synchronized void crash() {
        generation++;
        for (Inode inode : files.values()) {
            inode.crash(random);
        }
    }

    /** Flips one bit of a file's current and durable contents (media corruption). */
    public synchronized void flipBit(Path path, long position, int bit) throws IOException {
        Inode inode = inode(path);
        if (position >= inode.size) {
            throw new IOException("flip at " + position + " beyond " + path + " of " + inode.size + " bytes");
        }
        inode.data[(int) position] ^= (byte) (1 << bit);
        if (position < inode.durableSize) {
            inode.durable[(int) position] ^= (byte) (1 << bit);
        }
    }

    /**
     * Arranges a crash in the middle of whatever runs next: the {@code count}-th mutating call from now
     * (open, write, truncate, force, delete, rename, directory fsync) does not happen; instead the machine
     * crashes ({@link #crash()}) and the call throws {@link SimulatedCrash}.
     */
    public synchronized void crashAfterMutations(long count) {
        crashAtMutation = mutations + count;
    }

    public synchronized void cancelCrash() {
        crashAtMutation = Long.MAX_VALUE;
    }

    private void onMutation() {
        mutations++;
        if (mutations == crashAtMutation) {
            crashAtMutation = Long.MAX_VALUE;
            crash();
            throw new SimulatedCrash("simulated crash at mutation " + mutations);
        }
    }

    /** Thrown by the call during which {@link #crashAfterMutations} crashed the machine. */
    public static final class SimulatedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(String message) {
            super(message);
        }
    }

    private void maybeFail(Operation operation) throws IOException {
        if (operation != Operation.READ) {
            onMutation();
        }
        Integer left = failures.get(operation);
        if (left != null && left > 0) {
            failures.put(operation, left - 1);
            throw new IOException(EIO_MESSAGE + " on " + operation);
        }
    }

    private Inode inode(Path path) throws NoSuchFileException {
        Inode inode = files.get(path);
        if (inode == null) {
            throw new NoSuchFileException(path.toString());
        }
        return inode;
    }

    @Override
    public synchronized FileHandle open(Path path) throws IOException {
        maybeFail(Operation.OPEN);
        Inode inode = files.computeIfAbsent(path, p -> new Inode());
        return new Handle(path, inode, generation);
    }

    @Override
    public synchronized boolean exists(Path path) {
        return files.containsKey(path) || directories.contains(path);
    }

    @Override
    public synchronized long size(Path path) throws IOException {
        return inode(path).size;
    }

    @Override
    public synchronized List<Path> list(Path directory) {
        List<Path> result = new ArrayList<>();
        for (Path path : files.keySet()) {
            if (directory.equals(path.getParent())) {
                result.add(path);
            }
        }
        result.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return result;
    }

    @Override
    public synchronized void createDirectories(Path directory) {
        for (Path p = directory; p != null; p = p.getParent()) {
            directories.add(p);
        }
    }

    @Override
    public synchronized void delete(Path path) {
        onMutation();
        files.remove(path);
    }

    @Override
    public synchronized void atomicMove(Path source, Path target) throws IOException {
        onMutation();
        Inode inode = inode(source);
        files.remove(source);
        files.put(target, inode);
    }

    @Override
    public synchronized void fsyncDirectory(Path directory) {
        onMutation();
        directoryFsyncs++;
    }

    /** One file's contents: current bytes, durable bytes, and the operations issued since the last force. */
    private static final class Inode {
        byte[] data = new byte[256];
        int size;
        byte[] durable = new byte[0];
        int durableSize;
        final List<Object> pending = new ArrayList<>();

        void write(byte[] bytes, long position) {
            int end = (int) (position + bytes.length);
            if (end > data.length) {
                data = Arrays.copyOf(data, Math.max(end, data.length * 2));
            }
            if (position > size) {
                Arrays.fill(data, size, (int) position, (byte) 0);
            }
            System.arraycopy(bytes, 0, data, (int) position, bytes.length);
            size = Math.max(size, end);
            pending.add(new PendingWrite(position, bytes));
        }

        void truncate(long newSize) {
            if (newSize < size) {
                size = (int) newSize;
            }
            pending.add(newSize);
        }

        void force() {
            durable = Arrays.copyOf(data, size);
            durableSize = size;
            pending.clear();
        }

        void crash(Random random) {
            byte[] result = Arrays.copyOf(durable, Math.max(durableSize, 256));
            int resultSize = durableSize;
            int keep = pending.isEmpty() ? 0 : random.nextInt(pending.size() + 1);
            boolean tear = keep < pending.size() && random.nextBoolean();
            for (int i = 0; i < keep + (tear ? 1 : 0); i++) {
                Object op = pending.get(i);
                if (op instanceof PendingWrite write) {
                    int length = write.bytes.length;
                    if (i == keep) {
                        length = random.nextInt(length + 1);
                    }
                    int end = (int) write.position + length;
                    if (end > result.length) {
                        result = Arrays.copyOf(result, Math.max(end, result.length * 2));
                    }
                    if (write.position > resultSize) {
                        Arrays.fill(result, resultSize, (int) write.position, (byte) 0);
                    }
                    System.arraycopy(write.bytes, 0, result, (int) write.position, length);
                    resultSize = Math.max(resultSize, end);
                } else if (i < keep) {
                    resultSize = (int) Math.min(resultSize, (Long) op);
                }
            }
            data = result;
            size = resultSize;
            force();
        }
    }

    private record PendingWrite(long position, byte[] bytes) {
    }

    private final class Handle implements FileHandle {
        private final Path path;
        private final Inode inode;
        private final int openedInGeneration;
        private boolean closed;

        Handle(Path path, Inode inode, int generation) {
            this.path = path;
            this.inode = inode;
            this.openedInGeneration = generation;
        }

        private void checkOpen() throws IOException {
            if (closed || openedInGeneration != generation) {
                throw new ClosedChannelException();
            }
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public void write(ByteBuffer source, long position) throws IOException {
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                maybeFail(Operation.WRITE);
                int length = source.remaining();
                long growth = Math.max(0, position + length - inode.size);
                long free = capacityBytes - usedBytes();
                int fits = growth <= free ? length : (int) Math.max(0, length - (growth - free));
                byte[] bytes = new byte[fits];
                source.get(bytes);
                if (fits > 0) {
                    inode.write(bytes, position);
                }
                if (fits < length) {
                    throw new IOException(StorageException.DISK_FULL_MESSAGE + " (simulated, " + path + ")");
                }
            }
        }

        @Override
        public int read(ByteBuffer target, long position) throws IOException {
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                maybeFail(Operation.READ);
                if (position >= inode.size) {
                    return -1;
                }
                int n = (int) Math.min(target.remaining(), inode.size - position);
                target.put(inode.data, (int) position, n);
                return n;
            }
        }

        @Override
        public long size() throws IOException {
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                return inode.size;
            }
        }

        @Override
        public void truncate(long sizeBytes) throws IOException {
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                maybeFail(Operation.TRUNCATE);
                inode.truncate(sizeBytes);
            }
        }

        @Override
        public void force() throws IOException {
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                maybeFail(Operation.FORCE);
                forces++;
                inode.force();
            }
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            ByteBuffer buffer;
            synchronized (SimulatedFileIo.this) {
                checkOpen();
                int n = (int) Math.max(0, Math.min(count, inode.size - position));
                buffer = ByteBuffer.wrap(Arrays.copyOfRange(inode.data, (int) position, (int) position + n));
            }
            long written = 0;
            while (buffer.hasRemaining()) {
                written += target.write(buffer);
            }
            return written;
        }

        @Override
        public FileChannel fileChannel() {
            return null;
        }

        @Override
        public void close() {
            synchronized (SimulatedFileIo.this) {
                closed = true;
            }
        }
    }
}
