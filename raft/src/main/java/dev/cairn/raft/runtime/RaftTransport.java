package dev.cairn.raft.runtime;

import java.nio.ByteBuffer;

/**
 * How an engine's frames reach other engines: one connection (or channel) per peer, whatever the number of groups.
 * The engine calls {@link #send} from its loop threads; an implementation must not block them (queue or drop: Raft
 * resends what is lost) and hands every frame it receives to {@link RaftEngine#deliver}.
 */
@FunctionalInterface
public interface RaftTransport {

    /** Sends one frame ({@link FrameCodec}) to the engine of replica {@code peer}; it may be lost. */
    void send(int peer, ByteBuffer frame);
}
