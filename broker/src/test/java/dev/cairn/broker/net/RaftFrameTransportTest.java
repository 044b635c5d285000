package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.raft.Entry;
import dev.cairn.raft.RaftConfig;
import dev.cairn.raft.runtime.EngineConfig;
import dev.cairn.raft.runtime.FrameCodec;
import dev.cairn.raft.runtime.GroupStateMachine;
import dev.cairn.raft.runtime.ProposalRefusedException;
import dev.cairn.raft.runtime.RaftEngine;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three multi-Raft engines talking over {@link RaftFrameTransport} on loopback: groups elect, replicate, fail over. */
@Timeout(90)
class RaftFrameTransportTest {
    private static final int GROUPS = 20;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    Path root;

    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Integer, RaftEngine> engines = new ConcurrentHashMap<>();
    private final Map<Integer, RaftFrameTransport> transports = new ConcurrentHashMap<>();
    /** Per group, per replica: whether that replica serves as the group's leader. */
    private final Map<Integer, Map<Integer, Boolean>> serving = new ConcurrentHashMap<>();
    /** Per replica, per group: the commands applied, in order. */
    private final Map<Integer, Map<Integer, List<String>>> applied = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        engines.values().forEach(RaftEngine::close);
        transports.values().forEach(RaftFrameTransport::close);
    }

    private void start(int replica) throws Exception {
        RaftEngine[] engine = new RaftEngine[1];
        RaftFrameTransport transport = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                addresses::get, frame -> engine[0].deliver(frame), 1);
        addresses.put(replica, new InetSocketAddress("127.0.0.1", transport.port()));
        RaftConfig raft = new RaftConfig(10, 1, 20, RaftConfig.APPEND_BYTES_MAX_DEFAULT,
                RaftConfig.INFLIGHT_APPENDS_MAX_DEFAULT, RaftConfig.UNCOMMITTED_ENTRIES_MAX_DEFAULT);
        EngineConfig config = new EngineConfig(replica, 1, 20, raft, false, 300, 50,
                EngineConfig.LOOP_QUEUE_MAX_DEFAULT,
                EngineConfig.SNAPSHOT_CHUNK_BYTES_DEFAULT, 0);
        engine[0] = RaftEngine.start(config, root.resolve("r" + replica), transport,
                (group, leader, term, isServing) -> serving.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                        .put(replica, isServing), cause -> { });
        engines.put(replica, engine[0]);
        transports.put(replica, transport);
        Map<Integer, List<String>> mine = new ConcurrentHashMap<>();
        applied.put(replica, mine);
        for (int group = 0; group < GROUPS; group++) {
            List<String> commands = java.util.Collections.synchronizedList(new ArrayList<>());
            mine.put(group, commands);
            engine[0].createGroup(group, List.of(1, 2, 3), new GroupStateMachine() {
                @Override
                public long appliedIndex() {
                    return 0;
                }

                @Override
                public Object apply(Entry entry) {
                    if (entry.data().length > 0) {
                        commands.add(new String(entry.data(), StandardCharsets.UTF_8));
                    }
                    return entry.raftIndex();
                }
            }).get(10, TimeUnit.SECONDS);
        }
    }

    private int leaderOf(int group) {
        for (Map.Entry<Integer, Boolean> entry : serving.getOrDefault(group, Map.of()).entrySet()) {
            if (entry.getValue() && engines.containsKey(entry.getKey())) {
                return entry.getKey();
            }
        }
        return 0;
    }

    private void propose(int group, String command) throws Exception {
        long deadline = System.nanoTime() + WAIT_NS;
        while (true) {
            int leader = leaderOf(group);
            if (leader != 0) {
                try {
                    engines.get(leader).propose(group, command.getBytes(StandardCharsets.UTF_8))
                            .get(10, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException e) {
                    assertTrue(e.getCause() instanceof ProposalRefusedException, e.toString());
                }
            }
            assertTrue(System.nanoTime() < deadline, "group " + group + " took no proposal");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s: " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Test
    void groupsReplicateOverTcpAndFailOverWhenABrokerStops() throws Exception {
        for (int replica = 1; replica <= 3; replica++) {
            start(replica);
        }
        for (int group = 0; group < GROUPS; group++) {
            propose(group, "a" + group);
        }
        for (int group = 0; group < GROUPS; group++) {
            int g = group;
            await("group " + g + " applied on every replica", () -> applied.values().stream()
                    .allMatch(byGroup -> byGroup.get(g).equals(List.of("a" + g))));
        }
        List<Integer> ledByOne = new ArrayList<>();
        for (int group = 0; group < GROUPS; group++) {
            if (leaderOf(group) == 1) {
                ledByOne.add(group);
            }
        }
        engines.remove(1).close();
        transports.remove(1).close();
        for (int group : ledByOne) {
            await("group " + group + " elected a new leader", () -> leaderOf(group) != 0);
        }
        for (int group = 0; group < GROUPS; group++) {
            propose(group, "b" + group);
        }
        for (int group = 0; group < GROUPS; group++) {
            int g = group;
            await("group " + g + " applied the second command on the live replicas", () -> List.of(2, 3).stream()
                    .allMatch(replica -> applied.get(replica).get(g).equals(List.of("a" + g, "b" + g))));
        }
    }

    @Test
    void aMalformedFrameClosesItsConnectionAndChangesNothing() throws Exception {
        for (int replica = 1; replica <= 3; replica++) {
            start(replica);
        }
        propose(0, "before");
        try (Socket socket = new Socket("127.0.0.1", transports.get(2).port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(12);
            out.writeInt(0xBAD);
            out.writeInt(1);
            out.writeInt(0);
            out.flush();
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            assertEquals(-1, in.read(), "the transport closed the connection");
        }
        propose(0, "after");
        await("group 0 still replicates", () -> applied.get(2).get(0).equals(List.of("before", "after")));
    }

    @Test
    void trySendSaysWhetherTheFrameWasHandedToAConnection() throws Exception {
        List<ByteBuffer> received = new CopyOnWriteArrayList<>();
        RaftFrameTransport receiver = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0), peer -> null,
                received::add, 1);
        transports.put(2, receiver);
        InetSocketAddress receiverAddress = new InetSocketAddress("127.0.0.1", receiver.port());
        RaftFrameTransport sender = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                peer -> peer == 2 ? receiverAddress : null, frame -> { }, 1);
        transports.put(1, sender);
        ByteBuffer frame = ByteBuffer.allocate(8).putInt(0xCA1F_0100).putInt(7).flip();

        assertFalse(sender.trySend(2, frame), "no connection to replica 2 yet: the frame is not handed over");
        assertFalse(sender.trySend(3, frame), "replica 3 has no address: never connected");
        await("a connection to replica 2", () -> sender.trySend(2, frame));
        await("replica 2 received a frame", () -> !received.isEmpty());
        assertEquals(frame, received.get(0), "the frame arrives unchanged");
        assertEquals(0, frame.position(), "trySend does not consume the caller's buffer");
        assertFalse(sender.trySend(2, ByteBuffer.allocate(FrameCodec.FRAME_BYTES_MAX + 1)),
                "a frame longer than the peer's decoder takes is not sent (it would close the connection)");
        assertTrue(sender.trySend(2, frame), "the connection is still up");
    }
    @Test
    void aPeerThatMovedIsReachedAtItsNewAddressEvenWhileTheOldOneStillAccepts() throws Exception {
        // A restarted broker's engine binds a new port; its old one may be taken by any other listener, which
        // accepts the connection and swallows the frames (here: another transport, standing for it).
        List<ByteBuffer> swallowed = new CopyOnWriteArrayList<>();
        List<ByteBuffer> received = new CopyOnWriteArrayList<>();
        RaftFrameTransport oldAddressHolder = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                peer -> null, swallowed::add, 1);
        transports.put(3, oldAddressHolder);
        RaftFrameTransport moved = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0), peer -> null,
                received::add, 1);
        transports.put(2, moved);
        java.util.concurrent.atomic.AtomicReference<InetSocketAddress> whereIs2 = new java.util.concurrent.atomic
                .AtomicReference<>(new InetSocketAddress("127.0.0.1", oldAddressHolder.port()));
        RaftFrameTransport sender = RaftFrameTransport.start(new InetSocketAddress("127.0.0.1", 0),
                peer -> peer == 2 ? whereIs2.get() : null, frame -> { }, 1);
        transports.put(1, sender);
        ByteBuffer frame = ByteBuffer.allocate(8).putInt(0xCA1F_0100).putInt(7).flip();
        await("frames reach the old address", () -> sender.trySend(2, frame) && !swallowed.isEmpty());

        whereIs2.set(new InetSocketAddress("127.0.0.1", moved.port()));
        await("frames reach replica 2 at its new address", () -> {
            sender.trySend(2, frame);
            return !received.isEmpty();
        });
        assertEquals(frame, received.get(0));
    }
}
