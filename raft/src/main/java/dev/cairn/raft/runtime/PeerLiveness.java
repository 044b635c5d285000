package dev.cairn.raft.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-engine failure detector (docs/multi-raft.md, "Transport"): when this engine last heard from and last sent
 * to each peer. A peer silent for longer than the configured time is down until a frame from it arrives. Only the
 * peers of groups this engine holds are tracked, so a frame claiming an unknown sender grows nothing. Thread-safe:
 * loops record sends, transport threads record receipts, the engine's liveness thread checks.
 */
final class PeerLiveness {
    private final long downAfterNs;
    private final long pingEveryNs;
    private final ConcurrentHashMap<Integer, Peer> peers = new ConcurrentHashMap<>();

    private static final class Peer {
        volatile long lastHeardNs;
        volatile long lastSentNs;
        volatile boolean down;
        /** A frame came from it since it was first tracked (lastHeardNs starts at the tracking time). */
        volatile boolean heardOnce;

        Peer(long now) {
            lastHeardNs = now;
            lastSentNs = now;
        }
    }

    /** What one check found: the peers now down (reported again at every check) and those due a ping. */
    record Check(List<Integer> down, List<Integer> pingDue) {
    }

    PeerLiveness(long downAfterNs, long pingEveryNs) {
        this.downAfterNs = downAfterNs;
        this.pingEveryNs = pingEveryNs;
    }

    /** Starts tracking {@code peer} (a voter of a group created here), counting it alive from {@code now}. */
    void track(int peer, long now) {
        peers.computeIfAbsent(peer, p -> new Peer(now));
    }

    /** A frame came from {@code peer}; true when it had been reported down (it is back). */
    boolean heard(int peer, long now) {
        Peer state = peers.get(peer);
        if (state == null) {
            return false;
        }
        state.lastHeardNs = now;
        state.heardOnce = true;
        if (state.down) {
            state.down = false;
            return true;
        }
        return false;
    }

    /** Something went to {@code peer}: no ping is due until pingEvery passes again. */
    void sent(int peer, long now) {
        Peer state = peers.get(peer);
        if (state != null) {
            state.lastSentNs = now;
        }
    }

    /**
     * Nanoseconds from the last frame that came from {@code peer} to {@code now}; {@link Long#MAX_VALUE} when none
     * came, or the peer is not tracked.
     */
    long silentNs(int peer, long now) {
        Peer state = peers.get(peer);
        if (state == null || !state.heardOnce) {
            return Long.MAX_VALUE;
        }
        // A frame that arrived after the caller read its clock counts as silence 0.
        return Math.max(0, now - state.lastHeardNs);
    }

    boolean isTracked(int peer) {
        return peers.containsKey(peer);
    }

    boolean isDown(int peer) {
        Peer state = peers.get(peer);
        return state != null && state.down;
    }

    Check check(long now) {
        List<Integer> down = new ArrayList<>();
        List<Integer> pingDue = new ArrayList<>();
        for (var entry : peers.entrySet()) {
            Peer state = entry.getValue();
            if (now - state.lastHeardNs > downAfterNs) {
                state.down = true;
            }
            if (state.down) {
                down.add(entry.getKey());
            }
            if (now - state.lastSentNs >= pingEveryNs) {
                pingDue.add(entry.getKey());
            }
        }
        return new Check(down, pingDue);
    }
}
