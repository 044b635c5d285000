package dev.cairn.maelstrom.node;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft storage directory of one node process: {@code <java.io.tmpdir>/cairn-maelstrom-<node>-<pid>}.
 * Maelstrom ends nodes with SIGKILL, so no node can remove its own directory; instead each node, when it starts,
 * removes the directories of processes that no longer run. The directories are bounded by the number of nodes
 * running at once.
 */
final class NodeStorage {
    private static final Logger LOG = LoggerFactory.getLogger(NodeStorage.class);
    static final String PREFIX = "cairn-maelstrom-";
    /** Directories looked at per start-up clean-up. */
    static final int CLEANUP_ENTRIES_MAX = 10_000;

    private NodeStorage() {
    }

    static File create(String nodeId) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeStale(tmp);
        Path dir = tmp.resolve(PREFIX + nodeId + "-" + ProcessHandle.current().pid());
        Files.createDirectories(dir);
        return dir.toFile();
    }

    private static void removeStale(Path tmp) {
        int seen = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path entry : entries) {
                if (++seen > CLEANUP_ENTRIES_MAX) {
                    break;
                }
                String name = entry.getFileName().toString();
                long pid = pidOf(name);
                if (pid > 0 && ProcessHandle.of(pid).isEmpty()) {
                    deleteTree(entry);
                }
            }
        } catch (IOException e) {
            LOG.warn("could not clean up old node directories in {}", tmp, e);
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
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
