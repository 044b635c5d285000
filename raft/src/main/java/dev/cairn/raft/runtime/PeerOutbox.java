package dev.cairn.raft.runtime;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one loop turn says to each peer, for every group of the loop: sent as one frame per peer (or a few, when
 * large) at the end of the turn. Loop thread only.
 */
final class PeerOutbox {
    private static final Logger LOG = LoggerFactory.getLogger(PeerOutbox.class);

    private final int self;
    private final RaftTransport transport;
    private final PeerLiveness liveness;
    private final Map<Integer, List<FrameCodec.GroupMessage>> byPeer = new LinkedHashMap<>();

    PeerOutbox(int self, RaftTransport transport, PeerLiveness liveness) {
        this.self = self;
        this.transport = transport;
        this.liveness = liveness;
    }

    void add(int peer, FrameCodec.GroupMessage message) {
        byPeer.computeIfAbsent(peer, p -> new ArrayList<>()).add(message);
    }

    /** Sends what the turn queued; a frame the transport refuses is lost (Raft resends). */
    void send() {
        if (byPeer.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (Map.Entry<Integer, List<FrameCodec.GroupMessage>> batch : byPeer.entrySet()) {
            int peer = batch.getKey();
            for (ByteBuffer frame : FrameCodec.encode(self, batch.getValue())) {
                try {
                    transport.send(peer, frame);
                } catch (RuntimeException e) {
                    LOG.debug("a frame from replica {} to replica {} was lost: {}", self, peer, e.toString());
                }
            }
            liveness.sent(peer, now);
        }
        byPeer.clear();
    }
}
