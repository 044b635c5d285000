package dev.cairn.broker;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real file system, except that once {@link #failWritesIn} names a directory (a partition's, e.g.
 * {@code orders-0}), every write, truncation and fsync of a file in it fails, as on a disk that died under that log;
 * or, after {@link #failForcesIn}, only its fsyncs fail.
 */
final class FailingFileIo extends ForwardingFileIo {
    private volatile String failingDirectory;
    private volatile String failingForcesDirectory;
    private final AtomicInteger failures = new AtomicInteger();

    /** From now on, writes, truncations and fsyncs of files directly in a directory of this name fail. */
    void failWritesIn(String directoryName) {
        failingDirectory = directoryName;
    }

    /** From now on, fsyncs of files directly in a directory of this name fail (writes still succeed). */
    void failForcesIn(String directoryName) {
        failingForcesDirectory = directoryName;
    }

    /** Operations refused so far. */
    int failures() {
        return failures.get();
    }

    @Override
    void beforeWrite(Path path) throws IOException {
        fail(path, failingDirectory);
    }

    @Override
    void beforeTruncate(Path path) throws IOException {
        fail(path, failingDirectory);
    }

    @Override
    void beforeForce(Path path) throws IOException {
        fail(path, failingDirectory);
        fail(path, failingForcesDirectory);
    }

    private void fail(Path path, String failing) throws IOException {
        Path parent = path.getParent();
        if (failing != null && parent != null && parent.getFileName().toString().equals(failing)) {
            failures.incrementAndGet();
            throw new IOException("injected disk failure: " + parent + " refuses changes");
        }
    }
}
