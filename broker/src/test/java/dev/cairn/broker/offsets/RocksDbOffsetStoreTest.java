package dev.cairn.broker.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.NioFileIo;
import dev.cairn.broker.offsets.OffsetStore.CommittedOffset;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RocksDbOffsetStoreTest extends OffsetStoreContract {
    private static final int PARTITIONS = 4;
    private static final int GROUPS = 8;

    private Path dbDir() {
        return tempDir.resolve("offsets-db");
    }

    @Override
    OffsetStore open() {
        return RocksDbOffsetStore.open(new NioFileIo(), dbDir(), false);
    }

    @Override
    OffsetStore reopen(OffsetStore store) {
        store.close();
        return open();
    }

    /**
     * Kills a child JVM that commits in a loop, then checks that every partition's stored offsets belong to
     * exactly the stored applied Raft index: a commit and its index are written in one WriteBatch.
     */
    @Test
    void commitsAndAppliedIndexAreAtomicAcrossAKill() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CommitLoop.class.getName(), dbDir().toString());
        builder.redirectErrorStream(true);
        Process child = builder.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            long committed = 0;
            while (committed < 3000 && (line = out.readLine()) != null) {
                if (line.startsWith("committed ")) {
                    committed = Long.parseLong(line.substring("committed ".length()));
                }
            }
            assertTrue(committed >= 3000, "child stopped early at " + committed);
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not die");
        }
        try (OffsetStore store = open()) {
            long total = 0;
            for (int partition = 0; partition < PARTITIONS; partition++) {
                long applied = store.appliedRaftIndex("t", partition);
                assertTrue(applied > 0, "partition " + partition + " has applied nothing");
                Map<String, CommittedOffset> all = store.fetchAll("t", partition);
                assertEquals(GROUPS, all.size());
                for (Map.Entry<String, CommittedOffset> entry : all.entrySet()) {
                    assertEquals(applied, entry.getValue().commitTimeMs(), "group " + entry.getKey()
                            + " of partition " + partition + " is not from raft index " + applied);
                }
                total += applied;
            }
            assertTrue(total >= 3000, "acknowledged commits lost: " + total);
        }
    }

    /** The child process: commits raft index i to partition i % 4 for all groups, printing progress. */
    public static final class CommitLoop {
        private CommitLoop() {
        }

        public static void main(String[] args) {
            try (OffsetStore store = RocksDbOffsetStore.open(new NioFileIo(), Path.of(args[0]), false)) {
                long[] index = new long[PARTITIONS];
                for (long i = 1; i < Long.MAX_VALUE; i++) {
                    int partition = (int) (i % PARTITIONS);
                    index[partition]++;
                    Map<String, CommittedOffset> offsets = new HashMap<>();
                    for (int g = 0; g < GROUPS; g++) {
                        offsets.put("group-" + g, new CommittedOffset(i * 100 + g, "m", index[partition]));
                    }
                    store.commit("t", partition, index[partition], offsets);
                    System.out.println("committed " + i);
                }
            }
        }
    }
}
