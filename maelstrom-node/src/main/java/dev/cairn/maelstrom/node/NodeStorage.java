package dev.cairn.maelstrom.node;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft storage directory of one node process. By default {@code <java.io.tmpdir>/cairn-maelstrom-<node>-<pid>}:
 * Maelstrom ends nodes with SIGKILL, so no node can remove its own directory; instead each node, when it starts,
 * removes the directories of processes that no longer run. The directories are bounded by the number of nodes
 * running at once.
 *
 * <p>With {@code --storage-dir DIR} ({@link NodeConfig#storageDir()}) the node's directory is {@code DIR/<node>}
 * instead, kept across processes so that a node killed and restarted on it (the fault runs, {@code faults/}) comes
 * back with its Raft log, term and vote. Its Ratis storage is {@code DIR/<node>/raft}, and
 * {@code DIR/<node>/incarnation} counts the processes that started on it ({@link #nextIncarnation}). The clean-up
 * never touches it: it only removes {@code cairn-maelstrom-<node>-<pid>} directories of dead pids, and skips any
 * that holds the kept directory.
 *
 * <p>Every node of a run starts at once and finds the same stale directories, so the clean-up races with itself:
 * each node first renames a stale directory to a name of its own (only one rename of a directory can succeed), and
 * deletes only what it renamed, tolerating files that vanish meanwhile. A clean-up failure is logged, never fatal:
 * it used to end {@code init} with error 13 when a file vanished mid-walk ({@code UncheckedIOException}).
 */
final class NodeStorage {
    private static final Logger LOG = LoggerFactory.getLogger(NodeStorage.class);
    static final String PREFIX = "cairn-maelstrom-";
    /** Directories looked at per start-up clean-up. */
    static final int CLEANUP_ENTRIES_MAX = 10_000;
    /** Inserted into a stale directory's name by the node deleting it; the pid after it is that node's. */
    static final String REMOVING_MARK = ".removing-";

    private NodeStorage() {
    }

    /** Where one node process keeps its Raft log, and how many processes ran on that directory before it. */
    record Location(File raftDir, long incarnation) {
    }

    /** The file under a kept node directory counting the processes that started on it. */
    static final String INCARNATION_FILE = "incarnation";
    static final String RAFT_SUBDIR = "raft";

    /**
     * Creates (or, with a {@code storageDir}, reuses) this node's Raft directory. {@code storageDir} null: a new
     * per-process directory, incarnation 0.
     */
    static Location create(String nodeId, Path storageDir) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        if (storageDir == null) {
            removeStale(tmp, ProcessHandle.current().pid(), null);
            Path dir = tmp.resolve(PREFIX + nodeId + "-" + ProcessHandle.current().pid());
            Files.createDirectories(dir);
            return new Location(dir.toFile(), 0);
        }
        if (nodeId.isEmpty() || nodeId.contains("/") || nodeId.startsWith(".")) {
            throw new IOException("node id " + nodeId + " cannot name a directory");
        }
        Path nodeDir = storageDir.resolve(nodeId).toAbsolutePath();
        removeStale(tmp, ProcessHandle.current().pid(), nodeDir);
        Path raft = Files.createDirectories(nodeDir.resolve(RAFT_SUBDIR));
        return new Location(raft.toFile(), nextIncarnation(nodeDir));
    }

    /**
     * Reads and increments {@code dir/incarnation}: 0 for the first process on {@code dir}, then 1, 2, ... The new
     * value is written to a temporary file and renamed over the old one, so a kill leaves the old or the new count.
     */
    static long nextIncarnation(Path dir) throws IOException {
        Path file = dir.resolve(INCARNATION_FILE);
        long previous = -1;
        if (Files.exists(file)) {
            try {
                previous = Long.parseLong(Files.readString(file).trim());
            } catch (NumberFormatException e) {
                throw new IOException(file + " does not hold a number", e);
            }
        }
        long current = previous + 1;
        Path next = dir.resolve(INCARNATION_FILE + ".next");
        Files.writeString(next, Long.toString(current));
        Files.move(next, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return current;
    }

    /** Removes the directories under {@code tmp} of node processes that no longer run; never throws. */
    static void removeStale(Path tmp, long selfPid) {
        removeStale(tmp, selfPid, null);
    }

    /**
     * As {@link #removeStale(Path, long)}, skipping any directory that is or holds {@code keep} (a kept node
     * directory, which must survive whatever its name).
     */
    static void removeStale(Path tmp, long selfPid, Path keep) {
        int seen = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path entry : entries) {
                if (++seen > CLEANUP_ENTRIES_MAX) {
                    break;
                }
                String name = entry.getFileName().toString();
                // The pid after the last dash: the node's, or the remover's for a directory being deleted (one whose
                // remover died is claimed again).
                long pid = pidOf(name);
                if (keep != null && keep.toAbsolutePath().startsWith(entry.toAbsolutePath())) {
                    continue;
                }
                if (pid > 0 && ProcessHandle.of(pid).isEmpty()) {
                    claimAndDelete(entry, selfPid);
                }
            }
        } catch (IOException | java.io.UncheckedIOException | SecurityException e) {
            LOG.warn("could not clean up old node directories in {}", tmp, e);
        }
    }

    /** Renames {@code entry} to a name of this process's, then deletes it; another node's claim wins quietly. */
    private static void claimAndDelete(Path entry, long selfPid) {
        Path claimed = entry.resolveSibling(entry.getFileName() + REMOVING_MARK + selfPid);
        try {
            Files.move(entry, claimed, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            return;   // gone, or claimed by another node starting at the same time
        }
        try {
            deleteTree(claimed);
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warn("could not delete old node directory {}", claimed, e);
        }
    }

    private static long pidOf(String name) {
        int dash = name.lastIndexOf('-');
        try {
            return Long.parseLong(name.substring(dash + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void deleteTree(Path root) throws IOException {
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file,
                    java.nio.file.attribute.BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof java.nio.file.NoSuchFileException) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof java.nio.file.NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }
}
