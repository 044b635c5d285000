package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Ratis mechanics Cairn relies on: runtime group adds, local submits, leader loss (Raft paper §5.2). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftHostTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final RaftGroupId GROUP = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("test-0".getBytes(
            StandardCharsets.UTF_8)));

    @TempDir
    Path dir;
    private final List<RaftHost> hosts = new ArrayList<>();
    private final Map<String, RecordingStateMachine> machines = new ConcurrentHashMap<>();

    @AfterEach
    void closeHosts() throws IOException {
        for (RaftHost host : hosts) {
            host.close();
        }
    }

    private RaftHost startHost(String id, int port) throws IOException {
        RatisSettings settings = RatisSettings.defaults(dir.resolve("n" + id).toFile(), "127.0.0.1", port);
        RaftHost host = new RaftHost(id, settings, groupId -> {
            RecordingStateMachine machine = new RecordingStateMachine();
            machines.put(groupId.equals(GROUP) ? id : id + "/" + groupId, machine);
            return machine;
        });
        host.start();
        hosts.add(host);
        return host;
    }

    private static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void singleNodeGroupAppliesCommandsInOrder() throws Exception {
        int port = freePort();
        RaftHost host = startHost("1", port);
        host.addGroup(GROUP, List.of(RaftHost.peer("1", "127.0.0.1:" + port)));
        waitFor(() -> host.role(GROUP).map(GroupRole::isLeader).orElse(false), "a leader");
        for (int i = 1; i <= 200; i++) {
            SubmitResult.Applied applied = assertInstanceOf(SubmitResult.Applied.class,
                    host.submit(GROUP, utf8("c" + i)).get(30, TimeUnit.SECONDS));
            assertEquals(i, applied.reply().getInt(0));
        }
        assertEquals("c1", machines.get("1").applied.get(0));
        assertEquals("c200", machines.get("1").applied.get(199));
        assertTrue(host.role(GROUP).orElseThrow().term() >= 1);
    }

    /**
     * Issue 17: a group stuck on its way into the Raft log (here: its startTransaction waits on a gate) holds one
     * submit thread, not the caller and not other groups. The submit call returns at once, and 100 commands to another
     * group commit while the first is stuck; once released, the stuck group applies its command too.
     */
    @Test
    void aStuckGroupDoesNotHoldUpTheCallerOrOtherGroups() throws Exception {
        int port = freePort();
        RaftHost host = startHost("1", port);
        RaftGroupId stuck = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("stuck".getBytes(StandardCharsets.UTF_8)));
        host.addGroup(GROUP, List.of(RaftHost.peer("1", "127.0.0.1:" + port)));
        host.addGroup(stuck, List.of(RaftHost.peer("1", "127.0.0.1:" + port)));
        waitFor(() -> host.role(GROUP).map(GroupRole::isLeader).orElse(false)
                && host.role(stuck).map(GroupRole::isLeader).orElse(false), "leaders of both groups");
        RecordingStateMachine stuckMachine = machines.get("1/" + stuck);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        stuckMachine.gate = release;
        var stuckResult = host.submit(stuck, utf8("stuck-1"));
        var queuedBehind = host.submit(stuck, utf8("stuck-2"));
        waitFor(() -> stuckMachine.waitingAtGate.get() == 1, "the stuck group's submit waiting at its gate");
        for (int i = 1; i <= 100; i++) {
            assertInstanceOf(SubmitResult.Applied.class, host.submit(GROUP, utf8("f" + i)).get(30, TimeUnit.SECONDS));
        }
        assertTrue(!stuckResult.isDone() && !queuedBehind.isDone(), "the stuck group's commands are still waiting");
        release.countDown();
        assertInstanceOf(SubmitResult.Applied.class, stuckResult.get(30, TimeUnit.SECONDS));
        assertInstanceOf(SubmitResult.Applied.class, queuedBehind.get(30, TimeUnit.SECONDS));
        assertEquals(List.of("stuck-1", "stuck-2"), stuckMachine.applied, "one group's commands keep their order");
        assertEquals(100, machines.get("1").applied.size());
    }

    @Test
    void threeNodesReplicateAndSurviveLeaderLoss() throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(RaftHost.peer(Integer.toString(i + 1), "127.0.0.1:" + ports[i]));
        }
        for (int i = 0; i < 3; i++) {
            startHost(Integer.toString(i + 1), ports[i]).addGroup(GROUP, peers);
        }
        RaftHost leader = awaitLeader(hosts);
        RaftHost follower = hosts.stream().filter(h -> h != leader).findFirst().orElseThrow();
        SubmitResult.NotLeader notLeader = assertInstanceOf(SubmitResult.NotLeader.class,
                follower.submit(GROUP, utf8("to-follower")).get(30, TimeUnit.SECONDS));
        assertTrue(notLeader.leaderId() == null || notLeader.leaderId().equals(leader.selfId().toString()));
        for (int i = 1; i <= 50; i++) {
            assertInstanceOf(SubmitResult.Applied.class, leader.submit(GROUP, utf8("a" + i)).get(30, TimeUnit.SECONDS));
        }
        waitFor(() -> machines.values().stream().allMatch(m -> m.applied.size() == 50), "all replicas applied 50");

        long oldTerm = leader.role(GROUP).orElseThrow().term();
        leader.close();
        hosts.remove(leader);
        RaftHost newLeader = awaitLeader(hosts);
        assertTrue(newLeader.role(GROUP).orElseThrow().term() > oldTerm, "a new leader has a higher term");
        assertInstanceOf(SubmitResult.Applied.class, newLeader.submit(GROUP, utf8("after")).get(30, TimeUnit.SECONDS));
        waitFor(() -> hosts.stream().allMatch(h -> machines.get(h.selfId().toString()).applied.size() == 51),
                "the surviving majority applied the new command");
    }

    private static RaftHost awaitLeader(List<RaftHost> candidates) throws InterruptedException {
        RaftHost[] found = new RaftHost[1];
        waitFor(() -> {
            for (RaftHost h : candidates) {
                if (h.role(GROUP).map(GroupRole::isLeader).orElse(false)) {
                    found[0] = h;
                    return true;
                }
            }
            return false;
        }, "a leader");
        return found[0];
    }

    static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    static int freePort() throws IOException {
        return dev.cairn.broker.BrokerFixture.freePort();
    }
}
