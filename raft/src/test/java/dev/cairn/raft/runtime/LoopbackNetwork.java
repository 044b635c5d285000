package dev.cairn.raft.runtime;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Engines in one process, wired to each other directly; a replica can be cut off (its frames both ways dropped). */
final class LoopbackNetwork {
    private final Map<Integer, RaftEngine> engines = new ConcurrentHashMap<>();
    private final Set<Integer> cut = ConcurrentHashMap.newKeySet();
    /** Frames that carried at least one message (not pings). */
    final AtomicLong messageFrames = new AtomicLong();
    final AtomicLong pings = new AtomicLong();
    final AtomicLong malformed = new AtomicLong();
    /** When above 0, one frame in this many (pings included) is lost. */
    volatile int dropOneIn;
    private final AtomicLong sent = new AtomicLong();

    RaftTransport transportOf(int from) {
        return (peer, frame) -> {
            if (cut.contains(from) || cut.contains(peer)) {
                return;
            }
            int drop = dropOneIn;
            if (drop > 0 && sent.incrementAndGet() % drop == 0) {
                return;
            }
            RaftEngine engine = engines.get(peer);
            if (engine == null) {
                return;
            }
            ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame.duplicate()).flip();
            if (copy.getInt(8) == 0) {
                pings.incrementAndGet();
            } else {
                messageFrames.incrementAndGet();
            }
            try {
                engine.deliver(copy);
            } catch (FrameFormatException e) {
                malformed.incrementAndGet();
            }
        };
    }

    void attach(int replica, RaftEngine engine) {
        engines.put(replica, engine);
    }

    void detach(int replica) {
        engines.remove(replica);
    }

    void cut(int replica) {
        cut.add(replica);
    }

    void heal(int replica) {
        cut.remove(replica);
    }
}
