package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every node of a Maelstrom run starts at once and cleans up the directories the previous run's killed nodes left:
 * the clean-ups race, and a file vanishing mid-walk used to fail {@code init} with error 13.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeStorageTest {
    /** A pid no process has (beyond Linux's pid_max). */
    private static final long DEAD_PID = 4_194_304L * 4;

    @TempDir
    Path tmp;

    private Path staleNodeDirectory(String node, int files) throws IOException {
        Path dir = tmp.resolve(NodeStorage.PREFIX + node + "-" + DEAD_PID);
        for (int group = 0; group < 20; group++) {
            Path groupDir = Files.createDirectories(dir.resolve("group-" + group).resolve("current"));
            for (int i = 0; i < files; i++) {
                Files.writeString(groupDir.resolve("log_" + i), "entry " + i);
            }
        }
        return dir;
    }

    @Test
    void concurrentCleanUpsRemoveEveryStaleDirectoryAndNeverThrow() throws Exception {
        for (int node = 0; node < 5; node++) {
            staleNodeDirectory("n" + node, 30);
        }
        Path live = Files.createDirectories(tmp.resolve(NodeStorage.PREFIX + "n9-" + ProcessHandle.current().pid()));
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> cleanUps = new ArrayList<>();
        for (int node = 0; node < 5; node++) {
            long selfPid = 1000 + node;
            cleanUps.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                NodeStorage.removeStale(tmp, selfPid);
            }));
        }
        start.countDown();
        for (CompletableFuture<Void> cleanUp : cleanUps) {
            cleanUp.get(30, TimeUnit.SECONDS);
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(live), left.toList(), "only the running node's directory is left");
        }
    }

    @Test
    void aKeptStorageDirectoryIsReusedAndCountsItsIncarnations() throws IOException {
        Path storage = tmp.resolve("kept");
        NodeStorage.Location first = NodeStorage.create("n1", storage);
        Files.writeString(first.raftDir().toPath().resolve("entry"), "raft state");
        NodeStorage.Location second = NodeStorage.create("n1", storage);
        NodeStorage.Location third = NodeStorage.create("n1", storage);
        assertEquals(first.raftDir(), second.raftDir());
        assertEquals(storage.resolve("n1").resolve(NodeStorage.RAFT_SUBDIR).toFile(), third.raftDir());
        assertEquals(List.of(0L, 1L, 2L), List.of(first.incarnation(), second.incarnation(), third.incarnation()));
        assertEquals("raft state", Files.readString(third.raftDir().toPath().resolve("entry")));
        assertTrue(MaelstromIo.firstMsgId(1) > MaelstromIo.firstMsgId(0) + (1L << 30),
                "incarnations number their requests apart");
    }

    @Test
    void theCleanUpNeverRemovesAKeptDirectoryEvenWithAStaleLookingName() throws IOException {
        Path kept = staleNodeDirectory("n2", 1);   // named like a dead process's directory
        Path nodeDir = kept.resolve("n2");
        Files.createDirectories(nodeDir);
        staleNodeDirectory("n3", 1);
        NodeStorage.removeStale(tmp, ProcessHandle.current().pid(), nodeDir);
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(kept), left.toList(), "the stale directory went, the kept one stayed");
        }
        assertTrue(Files.isDirectory(nodeDir));
    }

    @Test
    void aDirectoryWhoseRemoverDiedIsRemovedByTheNextNode() throws IOException {
        Path stale = staleNodeDirectory("n1", 2);
        Path abandoned = Files.move(stale, stale.resolveSibling(stale.getFileName() + NodeStorage.REMOVING_MARK
                + DEAD_PID));
        NodeStorage.removeStale(tmp, ProcessHandle.current().pid());
        assertFalse(Files.exists(abandoned));
        assertTrue(Files.exists(tmp));
    }
}
