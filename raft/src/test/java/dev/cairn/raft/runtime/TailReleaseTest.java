package dev.cairn.raft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A machine that holds its entries' tails: once it applied an entry, the core keeps the entry's head only, so
 * payloads do not stay on the heap until the next snapshot. A follower cut off meanwhile still gets every entry
 * whole: the leader reads the tails back from its machine.
 */
@Timeout(120)
class TailReleaseTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path root;

    @Test
    void appliedTailsLeaveMemoryAndALaggingFollowerGetsThemReadBack() throws Exception {
        try (EngineCluster cluster = new EngineCluster(root, 3, 1)) {
            cluster.startAll();
            for (int replica = 1; replica <= 3; replica++) {
                cluster.createGroups(replica, 1, group -> new TailMachine());
            }
            cluster.proposeAnywhere(0, "first", WITHIN);
            int leader = cluster.leaderOf(0);
            int lagging = leader % 3 + 1;
            cluster.network.cut(lagging);
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                byte[] head = ("head-" + i).getBytes(StandardCharsets.UTF_8);
                ByteBuffer tail = ByteBuffer.wrap(("tail-" + i).repeat(100).getBytes(StandardCharsets.UTF_8));
                cluster.engines.get(leader).proposeOwned(0, head, tail).get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
                sent.add("head-" + i + ":" + ("tail-" + i).repeat(100));
            }
            TailMachine leaderMachine = machine(cluster, leader);
            assertEquals(0, leaderMachine.readBacks.get(), "nothing was sent again yet");
            cluster.network.heal(lagging);
            TailMachine follower = machine(cluster, lagging);
            EngineCluster.await("the cut-off follower applies every entry", WITHIN,
                    () -> follower.commands().size() == sent.size() + 1);
            assertEquals(sent, follower.commands().subList(1, sent.size() + 1), "the tails it got back");
            assertTrue(leaderMachine.readBacks.get() > 0, "the leader read tails back: they had left its memory");
            assertEquals(leaderMachine.commands(), follower.commands());
        }
    }

    private static TailMachine machine(EngineCluster cluster, int replica) {
        return (TailMachine) cluster.machines.get(replica).get(0);
    }

    /** Stores every tail as its entry is appended and applies "head:tail" (a plain command without a tail). */
    private static final class TailMachine implements CommandMachine {
        private final Map<Long, byte[]> tails = new ConcurrentHashMap<>();
        private final List<String> applied = new ArrayList<>();
        final AtomicInteger readBacks = new AtomicInteger();

        @Override
        public boolean holdsTails() {
            return true;
        }

        @Override
        public BitSet onAppend(List<Entry> entries) {
            BitSet stored = new BitSet(entries.size());
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                if (!entry.tailHeld() && entry.tail().hasRemaining()) {
                    byte[] tail = new byte[entry.tail().remaining()];
                    entry.tail().duplicate().get(tail);
                    tails.put(entry.raftIndex(), tail);
                    stored.set(i);
                }
            }
            return stored;
        }

        @Override
        public ByteBuffer readTail(Entry entry) {
            readBacks.incrementAndGet();
            byte[] tail = tails.get(entry.raftIndex());
            return tail == null ? null : ByteBuffer.wrap(tail.clone());
        }

        @Override
        public long appliedIndex() {
            return 0;
        }

        @Override
        public synchronized Object apply(Entry entry) {
            if (entry.dataLength() == 0) {
                return null;
            }
            String head = new String(entry.head(), StandardCharsets.UTF_8);
            if (entry.tailHeld() || entry.tail().hasRemaining()) {
                byte[] tail = tails.get(entry.raftIndex());
                applied.add(head + ":" + new String(tail, StandardCharsets.UTF_8));
            } else {
                applied.add(head);
            }
            return entry.raftIndex();
        }

        @Override
        public synchronized List<String> commands() {
            return List.copyOf(applied);
        }
    }
}
