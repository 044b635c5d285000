package dev.cairn.broker.engine.rpc;

import java.nio.ByteBuffer;

/**
 * Where {@link EngineRpc} hands its frames: the engine's connections ({@code RaftFrameTransport.trySend}, with the
 * node id turned into the engine's replica id). Must not block: it runs on the caller's thread, which may be a
 * Netty event loop or a thread completing a leader's future.
 */
@FunctionalInterface
public interface FrameSender {

    /**
     * Sends {@code frame} to broker {@code node} without consuming it (it may be read again after). Returns false
     * when the frame was not handed to a connection (none yet, too much unsent, too long): it will never arrive, so
     * the call it carries is safe to retry. True means handed over, not received.
     */
    boolean send(int node, ByteBuffer frame);
}
